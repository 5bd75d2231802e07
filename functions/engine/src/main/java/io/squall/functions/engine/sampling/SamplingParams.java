package io.squall.functions.engine.sampling;

import io.squall.functions.api.SamplingOptions;
import java.util.Map;

/**
 * How to pick the next token, with the semantics of llama.cpp's sampler chain and OpenAI's parameter names.
 *
 * <p>Neutral values switch a stage off: {@code topK == 0}, {@code topP == 1}, {@code minP == 0},
 * {@code repetitionPenalty == 1}, {@code presencePenalty == 0}, {@code frequencyPenalty == 0}. A
 * {@code temperature} of 0 means greedy decoding (argmax), as in llama.cpp and the OpenAI API.
 *
 * @param temperature       divides the logits before the draw; 0 selects greedy decoding; finite and {@code >= 0}
 * @param topK              keep only the {@code topK} most likely tokens; 0 disables; {@code >= 0}
 * @param topP              keep the smallest set of most likely tokens whose probability mass reaches
 *                          {@code topP}; in {@code (0, 1]}, 1 disables
 * @param minP              drop tokens whose probability is below {@code minP} times the most likely token's;
 *                          in {@code [0, 1]}, 0 disables
 * @param repetitionPenalty llama.cpp / CTRL penalty for tokens in the penalty window: positive logits are
 *                          divided by it, negative logits multiplied; in {@code [0.1, 10]}
 *                          ({@link SamplingOptions#MAX_REPETITION_PENALTY}), 1 disables
 * @param presencePenalty   OpenAI presence penalty subtracted once from every token in the window;
 *                          in {@code [-2, 2]}
 * @param frequencyPenalty  OpenAI frequency penalty subtracted once per occurrence in the window;
 *                          in {@code [-2, 2]}
 * @param penaltyLastN      window of the penalties, in tokens of the history (prompt and generated tokens):
 *                          the last {@code penaltyLastN} tokens, 0 disables the penalties, -1 means the whole
 *                          history
 * @param seed              seed of the per-sequence random generator; {@code null} picks a random seed when the
 *                          {@link Sampler} is created (then runs are not reproducible)
 * @param logitBias         OpenAI {@code logit_bias}: added to the token's logit before everything else; token ids
 *                          {@code >= 0}, biases in {@code [-100, 100]} (-100 bans a token in practice); empty for none
 */
public record SamplingParams(
        double temperature,
        int topK,
        double topP,
        double minP,
        double repetitionPenalty,
        double presencePenalty,
        double frequencyPenalty,
        int penaltyLastN,
        Long seed,
        Map<Integer, Double> logitBias) {

    /** The penalty window llama.cpp uses by default, in tokens. */
    public static final int DEFAULT_PENALTY_LAST_N = 64;


    /** Settings without a logit bias. */
    public SamplingParams(double temperature, int topK, double topP, double minP, double repetitionPenalty,
                          double presencePenalty, double frequencyPenalty, int penaltyLastN, Long seed) {
        this(temperature, topK, topP, minP, repetitionPenalty, presencePenalty, frequencyPenalty, penaltyLastN, seed,
                Map.of());
    }

    /**
     * Validates every field: the ranges of the wire's {@link SamplingOptions#checkRanges}, and the penalty window.
     *
     * @throws IllegalArgumentException naming the first field out of range
     */
    public SamplingParams {
        logitBias = Map.copyOf(logitBias);
        SamplingOptions.checkRanges(temperature, topK, topP, minP, repetitionPenalty, presencePenalty, frequencyPenalty,
                logitBias);
        if (penaltyLastN < -1) {
            throw new IllegalArgumentException(
                    "penaltyLastN must be >= -1 (-1 = whole history, 0 = disabled), got " + penaltyLastN);
        }
    }

    /** Greedy decoding (argmax) with no penalties: the deterministic baseline. */
    public static SamplingParams greedy() {
        return builder().temperature(0).build();
    }

    /**
     * The OpenAI API's defaults: temperature 1, no truncation, no penalties, random seed. Start from here and
     * override what the request sets.
     */
    public static Builder builder() {
        return new Builder();
    }

    /** True when {@code temperature == 0}: the sampler returns the argmax and never draws. */
    public boolean isGreedy() {
        return temperature == 0;
    }

    /** True when some penalty would change a logit (a non-neutral value and a non-empty window). */
    public boolean hasPenalties() {
        return penaltyLastN != 0 && (repetitionPenalty != 1 || presencePenalty != 0 || frequencyPenalty != 0);
    }

    /** Mutable builder starting from the OpenAI defaults; not thread-safe. {@link #build()} validates. */
    public static final class Builder {
        private double temperature = 1.0;
        private int topK;
        private double topP = 1.0;
        private double minP;
        private double repetitionPenalty = 1.0;
        private double presencePenalty;
        private double frequencyPenalty;
        private int penaltyLastN = DEFAULT_PENALTY_LAST_N;
        private Long seed;

        private Builder() {
        }

        /** @see SamplingParams#temperature() */
        public Builder temperature(double value) {
            this.temperature = value;
            return this;
        }

        /** @see SamplingParams#topK() */
        public Builder topK(int value) {
            this.topK = value;
            return this;
        }

        /** @see SamplingParams#topP() */
        public Builder topP(double value) {
            this.topP = value;
            return this;
        }

        /** @see SamplingParams#minP() */
        public Builder minP(double value) {
            this.minP = value;
            return this;
        }

        /** @see SamplingParams#repetitionPenalty() */
        public Builder repetitionPenalty(double value) {
            this.repetitionPenalty = value;
            return this;
        }

        /** @see SamplingParams#presencePenalty() */
        public Builder presencePenalty(double value) {
            this.presencePenalty = value;
            return this;
        }

        /** @see SamplingParams#frequencyPenalty() */
        public Builder frequencyPenalty(double value) {
            this.frequencyPenalty = value;
            return this;
        }

        /** @see SamplingParams#penaltyLastN() */
        public Builder penaltyLastN(int value) {
            this.penaltyLastN = value;
            return this;
        }

        /** @see SamplingParams#seed() */
        public Builder seed(Long value) {
            this.seed = value;
            return this;
        }

        /** @throws IllegalArgumentException naming the first field out of range */
        public SamplingParams build() {
            return new SamplingParams(temperature, topK, topP, minP, repetitionPenalty, presencePenalty,
                    frequencyPenalty, penaltyLastN, seed);
        }
    }
}
