package io.squall.functions.api;

import java.util.Objects;

/**
 * The {@code generate} route's request: continue {@code tokens} on a worker.
 *
 * @param requestId the gateway's id of the request, for logs and cancellation
 * @param tokens prompt token ids, already templated and tokenized (not empty)
 * @param sampling sampling settings
 * @param maxTokens most tokens to generate, at least 1
 * @param ignoreEos keep generating past end-of-generation tokens
 * @param topLogprobs alternatives to report with each token's log-probability (0 to {@value #MAX_TOP_LOGPROBS}),
 *     or -1 for no logprobs
 */
public record GenerateRequest(String requestId, int[] tokens, SamplingOptions sampling, int maxTokens,
                              boolean ignoreEos, int topLogprobs) {

    /** Most alternatives per token one request may ask for: the one limit the gateway, the wire and the engine share. */
    public static final int MAX_TOP_LOGPROBS = 20;

    public GenerateRequest {
        Objects.requireNonNull(requestId, "requestId");
        Objects.requireNonNull(tokens, "tokens");
        Objects.requireNonNull(sampling, "sampling");
    }
}
