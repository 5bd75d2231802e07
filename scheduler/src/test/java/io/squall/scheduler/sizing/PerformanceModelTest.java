package io.squall.scheduler.sizing;

import io.squall.scheduler.PlannerTest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class PerformanceModelTest {

    private final PerformanceModel model = new PerformanceModel(PlannerTest.profile());

    @Test
    void interpolatesTheTablesBetweenMeasuredPoints() {
        assertThat(model.ttftAloneMs(320)).isCloseTo(40, within(1e-9));
        assertThat(model.itlMs(20, 512)).isCloseTo(16, within(1e-9)); // halfway between 8 (12 ms) and 32 (20 ms)
        assertThat(model.itlMs(8, 1280)).isCloseTo(14, within(1e-9));
    }

    @Test
    void shortPromptsAreBatchedUpToAFullStep() {
        assertThat(model.prefillTokensPerSecond(128)).isCloseTo(512 / 0.060, within(1e-6));
        assertThat(model.prefillTokensPerSecond(2048)).isCloseTo(2048 / 0.300, within(1e-6));
    }

    @Test
    void theBestBatchMeetsTheItlTargetAndRespectsMemory() {
        double batch = model.maxBatchWithin(20, 512);
        assertThat(batch).isCloseTo(32, within(0.01));
        assertThat(model.itlMs(batch, 512)).isLessThanOrEqualTo(20.0001);
        assertThat(model.maxBatchWithin(9, 512)).isZero();
        // 200,000 tokens of KV hold 24 sequences of 8,000 tokens
        assertThat(model.maxBatchWithin(1000, 8000)).isCloseTo(200_000.0 / (8000 + 16), within(1e-9));
    }
}
