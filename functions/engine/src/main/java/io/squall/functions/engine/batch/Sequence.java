package io.squall.functions.engine.batch;

import io.squall.functions.api.CacheSources;
import io.squall.functions.engine.model.PagedKvCache;
import io.squall.functions.engine.sampling.Sampler;
import io.squall.functions.engine.sampling.TokenHistory;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.offload.OnboardTransfer;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A sequence inside the {@link BatchScheduler}. Its fields other than {@link #demand} and
 * {@link #cancelled} belong to the scheduler thread.
 *
 * <p>{@code tokens[0 .. tokenCount)} holds the prompt followed by the generated tokens; the KV cache
 * holds the first {@code computed()} of them. The next step runs {@code tokens[computed() .. tokenCount)}:
 * one token for a decoding sequence, a chunk of the prompt (or, after preemption, of the prompt and
 * generated tokens) otherwise.
 */
final class Sequence implements Generation {

    final GenerationRequest request;
    final TokenSink sink;
    final Sampler sampler;
    final TokenHistory history;
    final int[] tokens;
    final float[] logits;
    int tokenCount;
    int generated;
    /** Prompt tokens whose KV was reused on first admission (G1 prefix plus onboarded blocks). */
    int cachedTokens;
    /** Of {@link #cachedTokens}, how many came from each tier, indexed by {@link Tier#ordinal()}. */
    final int[] cachedFrom = new int[Tier.values().length];
    boolean admittedBefore;
    PagedKvCache cache;
    /**
     * Blocks of the prompt being read back from lower tiers into its pages; the sequence waits until it is
     * done. (A streamed onboard does not make it wait: its cache holds that one, see
     * {@link PagedKvCache#streaming()}.)
     */
    OnboardTransfer onboarding;
    /** Where the prompt's uncached blocks may be computed instead of here. */
    final RemotePrefill remote;
    /** Pages another worker is filling; the sequence waits until {@link #remoteFill} completes. */
    ReservedPages reserved;
    CompletableFuture<Boolean> remoteFill;
    /** Full prompt blocks reported to the sink through {@link TokenSink#onPromptBlock}. */
    int reportedBlocks;
    boolean finished;

    private final AtomicLong demand = new AtomicLong();
    private volatile boolean cancelled;
    private final Runnable wake;

    Sequence(GenerationRequest request, TokenSink sink, RemotePrefill remote, Sampler sampler, int capacity, int vocabSize,
             Runnable wake) {
        this.request = request;
        this.sink = sink;
        this.remote = remote;
        this.sampler = sampler;
        this.tokens = new int[capacity];
        this.history = new TokenHistory(capacity);
        for (int i = 0; i < request.promptLength(); i++) {
            tokens[i] = request.promptToken(i);
            history.add(tokens[i]);
        }
        this.tokenCount = request.promptLength();
        this.logits = new float[vocabSize];
        this.wake = wake;
    }

    /** Counts {@code tokens} more prompt tokens as served by the cache from {@code tier}. */
    void cached(Tier tier, int tokens) {
        cachedTokens += tokens;
        cachedFrom[tier.ordinal()] += tokens;
    }

    CacheSources cacheSources() {
        return new CacheSources(cachedFrom[Tier.G1.ordinal()], cachedFrom[Tier.G2.ordinal()], cachedFrom[Tier.G3.ordinal()],
                cachedFrom[Tier.G4.ordinal()]);
    }

    int computed() {
        return cache == null ? 0 : cache.length();
    }

    /**
     * Whether its prompt's KV is still arriving so that it cannot run (read from lower tiers or pushed by a
     * prefill worker); blocks streaming in from host memory do not stop it.
     */
    boolean awaitsKv() {
        return onboarding != null || remoteFill != null;
    }

    long demand() {
        return demand.get();
    }

    void consumeDemand() {
        demand.decrementAndGet();
    }

    boolean isCancelled() {
        return cancelled;
    }

    @Override
    public void request(long n) {
        if (n <= 0) {
            throw new IllegalArgumentException("demand must be positive, got " + n);
        }
        demand.accumulateAndGet(n, (current, add) -> current + add < 0 ? Long.MAX_VALUE : current + add);
        wake.run();
    }

    @Override
    public void cancel() {
        cancelled = true;
        wake.run();
    }
}
