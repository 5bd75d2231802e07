package io.squall.functions.engine.sampling;

import java.util.List;

/**
 * The token a {@link Sampler} chose together with log-probabilities for OpenAI's {@code logprobs} and
 * {@code top_logprobs}. The probabilities are those of the model's distribution after the repetition
 * penalties and before temperature and truncation (see {@link Sampler#sampleWithLogprobs}).
 *
 * @param tokenId     the chosen token id
 * @param logprob     natural-log probability of the chosen token
 * @param topLogprobs the most likely tokens, most likely first (ties: lower id first); possibly empty, never null
 */
public record SampledToken(int tokenId, float logprob, List<TokenLogprob> topLogprobs) {
    /** Copies {@code topLogprobs} into an immutable list. */
    public SampledToken {
        topLogprobs = List.copyOf(topLogprobs);
    }
}
