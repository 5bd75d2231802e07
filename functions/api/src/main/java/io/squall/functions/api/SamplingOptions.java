package io.squall.functions.api;

import java.util.Map;

/**
 * Sampling settings carried on the wire; neutral values disable a stage (see the engine's sampler). The ranges
 * below are checked on construction ({@link #checkRanges}, which the engine's settings share), so no stage holds
 * settings that make a sampler divide by zero or see an infinite logit.
 *
 * @param temperature 0 for greedy; finite and {@code >= 0}
 * @param topK 0 disables; {@code >= 0}
 * @param topP 1 disables; in {@code (0, 1]}
 * @param minP 0 disables; in {@code [0, 1]}
 * @param repetitionPenalty 1 disables; in {@code [1 / MAX_REPETITION_PENALTY, MAX_REPETITION_PENALTY]}
 * @param presencePenalty 0 disables; in {@code [-MAX_PENALTY, MAX_PENALTY]}
 * @param frequencyPenalty 0 disables; in {@code [-MAX_PENALTY, MAX_PENALTY]}
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
    /**
     * Largest repetition penalty, and the inverse of the smallest: a logit divided by a penalty out of this range
     * could leave the float range (a penalty of 1e-223 is 0 as a float, and a logit divided by it +Infinity).
     */
    public static final double MAX_REPETITION_PENALTY = 10.0;

    /** @throws IllegalArgumentException naming the first setting out of its range (see the components) */
    public SamplingOptions {
        logitBias = Map.copyOf(logitBias);
        checkRanges(temperature, topK, topP, minP, repetitionPenalty, presencePenalty, frequencyPenalty, logitBias);
    }

    /** Options without a logit bias. */
    public SamplingOptions(double temperature, int topK, double topP, double minP, double repetitionPenalty,
                           double presencePenalty, double frequencyPenalty, Long seed) {
        this(temperature, topK, topP, minP, repetitionPenalty, presencePenalty, frequencyPenalty, seed, Map.of());
    }

    /**
     * Checks sampling settings against the ranges every stage accepts (see the components): the one definition of
     * those ranges, shared by the wire decoder and the engine.
     *
     * @throws IllegalArgumentException naming the first setting out of range
     */
    public static void checkRanges(double temperature, int topK, double topP, double minP, double repetitionPenalty,
                                   double presencePenalty, double frequencyPenalty, Map<Integer, Double> logitBias) {
        if (!Double.isFinite(temperature) || temperature < 0) {
            throw new IllegalArgumentException("temperature must be finite and >= 0 (0 = greedy), got " + temperature);
        }
        if (topK < 0) {
            throw new IllegalArgumentException("topK must be >= 0 (0 = disabled), got " + topK);
        }
        if (!(topP > 0 && topP <= 1)) {
            throw new IllegalArgumentException("topP must be in (0, 1] (1 = disabled), got " + topP);
        }
        if (!(minP >= 0 && minP <= 1)) {
            throw new IllegalArgumentException("minP must be in [0, 1] (0 = disabled), got " + minP);
        }
        if (!(repetitionPenalty >= 1 / MAX_REPETITION_PENALTY && repetitionPenalty <= MAX_REPETITION_PENALTY)) {
            throw new IllegalArgumentException("repetitionPenalty must be in [" + 1 / MAX_REPETITION_PENALTY + ", "
                    + MAX_REPETITION_PENALTY + "] (1 = disabled), got " + repetitionPenalty);
        }
        if (!(Math.abs(presencePenalty) <= MAX_PENALTY)) {
            throw new IllegalArgumentException("presencePenalty must be in [-" + MAX_PENALTY + ", " + MAX_PENALTY
                    + "], got " + presencePenalty);
        }
        if (!(Math.abs(frequencyPenalty) <= MAX_PENALTY)) {
            throw new IllegalArgumentException("frequencyPenalty must be in [-" + MAX_PENALTY + ", " + MAX_PENALTY
                    + "], got " + frequencyPenalty);
        }
        if (logitBias.size() > MAX_LOGIT_BIAS_TOKENS) {
            throw new IllegalArgumentException("a logit bias may name at most " + MAX_LOGIT_BIAS_TOKENS + " tokens, got "
                    + logitBias.size());
        }
        logitBias.forEach((token, bias) -> {
            if (token < 0 || !(Math.abs(bias) <= MAX_LOGIT_BIAS)) {
                throw new IllegalArgumentException("a logit bias needs token ids >= 0 and biases in [-" + MAX_LOGIT_BIAS
                        + ", " + MAX_LOGIT_BIAS + "], got " + token + ": " + bias);
            }
        });
    }

    /** Greedy decoding without penalties. */
    public static SamplingOptions greedy() {
        return new SamplingOptions(0, 0, 1, 0, 1, 0, 0, null);
    }
}
