package io.squall.functions.api;

import java.util.Map;

/**
 * Sampling settings carried on the wire; neutral values disable a stage (see the engine's sampler).
 *
 * @param temperature 0 for greedy
 * @param topK 0 disables
 * @param topP 1 disables
 * @param minP 0 disables
 * @param repetitionPenalty 1 disables
 * @param presencePenalty 0 disables
 * @param frequencyPenalty 0 disables
 * @param seed the sampler's seed, or {@code null} for a random one
 * @param logitBias token id → bias added to its logit (OpenAI {@code logit_bias}); empty for none
 */
public record SamplingOptions(double temperature, int topK, double topP, double minP, double repetitionPenalty,
                              double presencePenalty, double frequencyPenalty, Long seed,
                              Map<Integer, Double> logitBias) {

    /** Most tokens one logit bias may name (OpenAI's limit): the one limit the gateway and the wire share. */
    public static final int MAX_LOGIT_BIAS_TOKENS = 300;
    /** Largest magnitude of one logit bias (OpenAI's range is -100 to 100): shared by the gateway and the sampler. */
    public static final double MAX_LOGIT_BIAS = 100.0;
    /** Largest magnitude of the presence and frequency penalties (OpenAI's): shared by the gateway and the sampler. */
    public static final double MAX_PENALTY = 2.0;

    public SamplingOptions {
        logitBias = Map.copyOf(logitBias);
    }

    /** Options without a logit bias. */
    public SamplingOptions(double temperature, int topK, double topP, double minP, double repetitionPenalty,
                           double presencePenalty, double frequencyPenalty, Long seed) {
        this(temperature, topK, topP, minP, repetitionPenalty, presencePenalty, frequencyPenalty, seed, Map.of());
    }

    /** Greedy decoding without penalties. */
    public static SamplingOptions greedy() {
        return new SamplingOptions(0, 0, 1, 0, 1, 0, 0, null);
    }
}
