package io.squall.functions.api;

import java.util.List;
import java.util.Objects;

/**
 * One element of the {@code generate} stream: newly generated tokens, and on the last element the
 * finish reason and usage. A stream is zero or more chunks with tokens, the last of which (possibly
 * with no tokens) carries {@code finishReason} and {@code usage}.
 *
 * @param tokenIds generated token ids, in order
 * @param logprobs one entry per token when logprobs were requested, else empty
 * @param finishReason set on the last chunk only
 * @param usage set on the last chunk only
 */
public record TokenChunk(int[] tokenIds, List<TokenLogprobs> logprobs, FinishReason finishReason, Usage usage) {

    public TokenChunk {
        Objects.requireNonNull(tokenIds, "tokenIds");
        logprobs = List.copyOf(logprobs);
    }

    /** Whether this is the stream's last chunk. */
    public boolean isLast() {
        return finishReason != null;
    }

    /**
     * Token counts of a finished request.
     *
     * @param promptTokens tokens in the prompt
     * @param completionTokens tokens generated
     * @param cachedTokens prompt tokens whose KV was reused
     * @param sources where the cached tokens came from, by tier, or {@code null} when not reported
     */
    public record Usage(int promptTokens, int completionTokens, int cachedTokens, CacheSources sources) {

        /** Counts without the tiers the cached tokens came from. */
        public Usage(int promptTokens, int completionTokens, int cachedTokens) {
            this(promptTokens, completionTokens, cachedTokens, null);
        }
    }

    /**
     * The log-probability of a generated token and of its most likely alternatives.
     *
     * @param tokenId the generated token
     * @param logprob its natural-log probability
     * @param topTokenIds the alternatives, most likely first
     * @param topLogprobs their log-probabilities
     */
    public record TokenLogprobs(int tokenId, float logprob, int[] topTokenIds, float[] topLogprobs) {
    }
}
