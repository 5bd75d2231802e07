package io.squall.functions.engine.mock;

import io.squall.functions.engine.model.ForwardPass;
import io.squall.kvgrid.pool.KvElementType;
import io.squall.kvgrid.pool.KvLayout;

import java.util.List;
import java.util.Objects;

/**
 * A forward pass that computes nothing and takes the time a real one would: each step's duration comes from a
 * {@link StepTimingModel} (divided by the speedup), its tokens from {@link MockTokens}. Sequences still page
 * through the scheduler's KV pool block by block, so prefix caching, eviction, KV events, offload and transfers
 * behave as on a real worker; the pages are just small ({@link #PAGE_FLOATS_PER_TOKEN} floats per token for keys
 * and values together), because the point is to run dozens of workers in one small machine.
 *
 * <p>Not thread-safe: one scheduler thread.
 */
public final class MockForwardPass implements ForwardPass {

    /** Floats one token takes in a mock KV page, keys and values together. */
    static final int PAGE_FLOATS_PER_TOKEN = 4;

    private final StepTimingModel timing;
    private final MockTokens tokens;
    private final StepPacer pacer;
    private final int maxPositions;

    /**
     * @param speedup simulated seconds per wall-clock second: step durations are divided by it
     * @param maxPositions the longest sequence, in tokens
     */
    public MockForwardPass(StepTimingModel timing, MockTokens tokens, double speedup, int maxPositions) {
        this.timing = Objects.requireNonNull(timing, "timing");
        this.tokens = Objects.requireNonNull(tokens, "tokens");
        this.pacer = new StepPacer(speedup);
        if (maxPositions < 2) {
            throw new IllegalArgumentException("maxPositions must be at least 2, got " + maxPositions);
        }
        this.maxPositions = maxPositions;
    }

    @Override
    public int vocabSize() {
        return tokens.vocabSize();
    }

    @Override
    public int maxPositions() {
        return maxPositions;
    }

    /** One layer, one head of {@code PAGE_FLOATS_PER_TOKEN / 2} floats: {@code 16 × blockSize} bytes a page. */
    @Override
    public KvLayout kvLayout(int blockSize) {
        return new KvLayout(1, 1, PAGE_FLOATS_PER_TOKEN / 2, blockSize, KvElementType.F32);
    }

    @Override
    public void forward(List<Segment> segments) {
        long calledAt = System.nanoTime();
        ForwardPass.checkSegments(segments, tokens.vocabSize(), maxPositions);
        StepShape shape = StepShape.of(segments);
        for (Segment segment : segments) {
            segment.cache().advanceUnwritten(segment.count());
            if (segment.logits() != null) {
                tokens.writeLogits(segment.tokens(), segment.offset() + segment.count(), segment.logits());
            }
        }
        pacer.pace(calledAt, timing.seconds(shape));
    }
}
