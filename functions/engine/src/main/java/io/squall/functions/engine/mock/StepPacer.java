package io.squall.functions.engine.mock;

import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * Holds each simulated step until its modelled duration has passed. Steps run back to back are paced from the
 * previous step's end rather than from when the scheduler called, so the scheduler's own work between steps
 * (sampling, delivery), which the measured durations already include, does not add up on top of them; a step
 * after an idle gap starts when it is called. If the simulation cannot keep up, steps simply end late.
 *
 * <p>Not thread-safe: one per forward pass.
 */
public final class StepPacer {

    /** A call within this long after the previous step's end continues the busy stretch. */
    static final long BACK_TO_BACK_NANOS = 2_000_000;

    private final double speedup;
    private final LongSupplier clock;
    private final LongConsumer sleeper;
    private long lastEnd = Long.MIN_VALUE;

    /** @param speedup simulated seconds per wall-clock second, &gt; 0 */
    public StepPacer(double speedup) {
        this(speedup, System::nanoTime, LockSupport::parkNanos);
    }

    /** With another clock ({@link System#nanoTime()} units) and a way to wait a number of its nanoseconds. */
    StepPacer(double speedup, LongSupplier clock, LongConsumer sleeper) {
        if (!(speedup > 0) || Double.isInfinite(speedup)) {
            throw new IllegalArgumentException("speedup must be positive, got " + speedup);
        }
        this.speedup = speedup;
        this.clock = clock;
        this.sleeper = sleeper;
    }

    /**
     * Blocks until a step of {@code simulatedSeconds}, called at {@code calledAt} on this pacer's clock, ends.
     *
     * @return the step's end on this pacer's clock
     */
    public long pace(long calledAt, double simulatedSeconds) {
        long duration = Math.round(simulatedSeconds / speedup * 1e9);
        boolean backToBack = lastEnd != Long.MIN_VALUE && calledAt - lastEnd <= BACK_TO_BACK_NANOS;
        long end = (backToBack ? lastEnd : calledAt) + duration;
        for (long left = end - clock.getAsLong(); left > 0; left = end - clock.getAsLong()) {
            sleeper.accept(left);
        }
        lastEnd = end;
        return end;
    }
}
