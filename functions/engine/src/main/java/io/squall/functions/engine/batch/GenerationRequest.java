package io.squall.functions.engine.batch;

import io.squall.functions.api.GenerateRequest;
import io.squall.functions.engine.sampling.SamplingParams;

import java.util.Objects;

/**
 * One sequence to generate.
 *
 * @param id the caller's identifier, for logs
 * @param prompt prompt token ids (not empty)
 * @param sampling how to pick tokens
 * @param maxTokens most tokens to generate
 * @param ignoreEos keep generating past end-of-generation tokens
 * @param topLogprobs alternatives to report with each token's log-probability; -1 reports none
 */
public record GenerationRequest(String id, int[] prompt, SamplingParams sampling, int maxTokens, boolean ignoreEos,
                                int topLogprobs) {

    public GenerationRequest {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(prompt, "prompt");
        Objects.requireNonNull(sampling, "sampling");
        if (prompt.length == 0) {
            throw new IllegalArgumentException("the prompt is empty");
        }
        if (maxTokens < 1) {
            throw new IllegalArgumentException("max tokens must be at least 1, got " + maxTokens);
        }
        if (topLogprobs < -1 || topLogprobs > GenerateRequest.MAX_TOP_LOGPROBS) {
            throw new IllegalArgumentException("top logprobs must be between 0 and " + GenerateRequest.MAX_TOP_LOGPROBS
                    + ", got " + topLogprobs);
        }
        prompt = prompt.clone();
    }

    @Override
    public int[] prompt() {
        return prompt.clone();
    }

    int promptLength() {
        return prompt.length;
    }

    int promptToken(int i) {
        return prompt[i];
    }
}
