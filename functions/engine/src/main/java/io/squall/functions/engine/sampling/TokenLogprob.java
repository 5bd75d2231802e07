package io.squall.functions.engine.sampling;

/**
 * A token and its natural-log probability, as reported in OpenAI's {@code logprobs}.
 *
 * @param tokenId id in the model's vocabulary
 * @param logprob natural logarithm of the probability, {@code <= 0}
 */
public record TokenLogprob(int tokenId, float logprob) {
}
