package io.squall.functions.engine.mock;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The pacer on a simulated clock that advances only when it sleeps. */
class StepPacerTest {

    private long now;
    private final List<Long> sleeps = new ArrayList<>();

    private StepPacer pacer(double speedup) {
        return new StepPacer(speedup, () -> now, nanos -> {
            sleeps.add(nanos);
            now += nanos;
        });
    }

    @Test
    void aStepLastsItsModelledTimeDividedByTheSpeedup() {
        StepPacer pacer = pacer(4);
        now = 1_000_000_000L;
        long end = pacer.pace(now, 0.02); // 20 ms simulated
        assertThat(end - 1_000_000_000L).isEqualTo(5_000_000L);
        assertThat(now).isEqualTo(end);
    }

    @Test
    void backToBackStepsArePacedFromThePreviousEndSoTheSchedulersOwnWorkIsAbsorbed() {
        StepPacer pacer = pacer(1);
        long first = pacer.pace(now, 0.010);
        now += 300_000; // 0.3 ms of sampling and delivery between steps
        long second = pacer.pace(now, 0.010);
        assertThat(second - first).isEqualTo(10_000_000L);
    }

    @Test
    void aStepAfterAnIdleGapStartsWhenCalled() {
        StepPacer pacer = pacer(1);
        pacer.pace(now, 0.010);
        now += 50_000_000; // idle for 50 ms
        long called = now;
        assertThat(pacer.pace(called, 0.010)).isEqualTo(called + 10_000_000L);
    }

    @Test
    void aStepWhoseTimeHasPassedDoesNotSleepAndLeavesNoDebtForTheNext() {
        StepPacer pacer = pacer(1);
        long first = pacer.pace(now, 0.010);
        now = first + 25_000_000; // the simulation fell 25 ms behind (an overloaded machine)
        long late = pacer.pace(first + 1_000_000, 0.010);
        assertThat(late).isEqualTo(first + 10_000_000L);
        assertThat(sleeps).hasSize(1); // only the first step slept
        long called = now;
        assertThat(pacer.pace(called, 0.010)).isEqualTo(called + 10_000_000L);
    }

    @Test
    void rejectsANonPositiveSpeedup() {
        assertThatThrownBy(() -> new StepPacer(0)).hasMessageContaining("positive");
        assertThatThrownBy(() -> new StepPacer(Double.NaN)).hasMessageContaining("positive");
    }
}
