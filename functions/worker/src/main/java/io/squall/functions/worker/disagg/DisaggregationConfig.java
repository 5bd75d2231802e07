package io.squall.functions.worker.disagg;

import java.time.Duration;
import java.util.Objects;

/**
 * When a decode worker hands a prompt to a prefill worker.
 *
 * @param minUncachedTokens prefill remotely only prompts with more tokens than this that the decode
 *     worker's prefix cache lacks; shorter ones are cheaper to compute in place
 * @param maxPrefillQueue pick only prefill workers with at most this many sequences waiting, as their
 *     last load report says; when none qualifies the prompt is prefilled locally
 * @param timeout longest wait for a remote prefill and its pushed blocks before computing locally
 */
public record DisaggregationConfig(int minUncachedTokens, int maxPrefillQueue, Duration timeout) {

    public DisaggregationConfig {
        Objects.requireNonNull(timeout, "timeout");
        if (minUncachedTokens < 0 || maxPrefillQueue < 0) {
            throw new IllegalArgumentException("the disaggregation threshold and queue bound must not be negative");
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("the remote prefill timeout must be positive");
        }
    }

    /** Prompts with more than 512 uncached tokens, prefill workers with at most 4 waiting, 60 s timeout. */
    public static DisaggregationConfig defaults() {
        return new DisaggregationConfig(512, 4, Duration.ofSeconds(60));
    }
}
