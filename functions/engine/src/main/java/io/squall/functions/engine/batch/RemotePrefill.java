package io.squall.functions.engine.batch;

import java.util.concurrent.CompletableFuture;

/**
 * Lets a prompt's KV be computed elsewhere (disaggregated prefill) into pages the scheduler reserved for
 * it. Consulted on the scheduler thread when a sequence is first admitted and its prompt has full blocks
 * that the pool's prefix cache lacks; both methods must return at once.
 */
public interface RemotePrefill {

    /** Never prefills remotely. */
    RemotePrefill NONE = new RemotePrefill() {
        @Override
        public boolean wanted(GenerationRequest request, int uncachedTokens) {
            return false;
        }

        @Override
        public CompletableFuture<Boolean> start(PrefillTarget target) {
            throw new UnsupportedOperationException("no remote prefill");
        }
    };

    /**
     * Whether to prefill remotely a prompt of which {@code uncachedTokens} are not cached; when false the
     * sequence prefills locally (onboarding from lower tiers as usual) and {@link #start} is not called.
     */
    boolean wanted(GenerationRequest request, int uncachedTokens);

    /**
     * Starts filling {@code target}'s pages.
     *
     * @return a future that completes {@code true} once every page of {@code target} was
     *     {@linkplain PrefillTarget#write written}, or {@code false} (or exceptionally) when the transfer
     *     failed, in which case the sequence computes the pages itself. The scheduler cancels it when it
     *     gives the pages up (the sequence was cancelled or preempted).
     */
    CompletableFuture<Boolean> start(PrefillTarget target);
}
