package io.squall.cli.bench;

import io.squall.functions.engine.mock.StepShape;
import io.squall.functions.engine.mock.StepTimingFit;
import io.squall.functions.engine.model.ForwardPass;
import io.squall.kvgrid.pool.KvLayout;

import java.util.ArrayList;
import java.util.List;

/**
 * A forward pass that notes the shape and wall-clock span of every step it runs for another, so a profiler can
 * tell what each step cost. Steps are run by the scheduler thread; the notes are read by the profiler once the
 * scheduler is idle.
 */
final class RecordingForwardPass implements ForwardPass {

    /** A step that starts within this long of the previous one's end was waiting on nothing but the scheduler. */
    private static final long BACK_TO_BACK_NANOS = 10_000_000;

    /** One step: its shape and when it ran ({@link System#nanoTime()}). */
    record Step(StepShape shape, long start, long end) {
    }

    private final ForwardPass inner;
    private final List<Step> steps = new ArrayList<>();

    RecordingForwardPass(ForwardPass inner) {
        this.inner = inner;
    }

    @Override
    public int vocabSize() {
        return inner.vocabSize();
    }

    @Override
    public int maxPositions() {
        return inner.maxPositions();
    }

    @Override
    public KvLayout kvLayout(int blockSize) {
        return inner.kvLayout(blockSize);
    }

    @Override
    public void forward(List<Segment> segments) {
        StepShape shape = StepShape.of(segments);
        long start = System.nanoTime();
        inner.forward(segments);
        long end = System.nanoTime();
        synchronized (steps) {
            steps.add(new Step(shape, start, end));
        }
    }

    /** Forgets the steps so far. */
    void clear() {
        synchronized (steps) {
            steps.clear();
        }
    }

    /** The steps since the last {@link #clear()}, in order. */
    List<Step> steps() {
        synchronized (steps) {
            return List.copyOf(steps);
        }
    }

    /**
     * Each step followed back to back by another, with the time from its start to the next one's: what a step costs
     * the scheduler, sampling and bookkeeping included; times multiplied by {@code timeScale}.
     */
    static List<StepTimingFit.Sample> samples(List<Step> steps, double timeScale) {
        List<StepTimingFit.Sample> samples = new ArrayList<>();
        for (int i = 0; i + 1 < steps.size(); i++) {
            Step step = steps.get(i);
            Step next = steps.get(i + 1);
            if (next.start() - step.end() <= BACK_TO_BACK_NANOS) {
                samples.add(new StepTimingFit.Sample(step.shape(), (next.start() - step.start()) / 1e9 * timeScale));
            }
        }
        return samples;
    }
}
