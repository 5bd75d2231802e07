package io.squall.functions.worker.local;

import io.squall.functions.api.SamplingOptions;
import io.squall.functions.engine.sampling.SamplingParams;

/** Converts sampling settings between the wire ({@link SamplingOptions}) and the engine ({@link SamplingParams}). */
public final class SamplingMapping {

    private SamplingMapping() {
    }

    /** The engine's settings for wire options; the penalty window is the engine's default. */
    public static SamplingParams params(SamplingOptions options) {
        return new SamplingParams(options.temperature(), options.topK(), options.topP(), options.minP(),
                options.repetitionPenalty(), options.presencePenalty(), options.frequencyPenalty(),
                SamplingParams.DEFAULT_PENALTY_LAST_N, options.seed(), options.logitBias());
    }

    /** The wire options of engine settings (the penalty window does not travel: both sides use the default). */
    public static SamplingOptions options(SamplingParams params) {
        return new SamplingOptions(params.temperature(), params.topK(), params.topP(), params.minP(),
                params.repetitionPenalty(), params.presencePenalty(), params.frequencyPenalty(), params.seed(),
                params.logitBias());
    }
}
