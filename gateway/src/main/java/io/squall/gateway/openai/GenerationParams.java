package io.squall.gateway.openai;

import com.fasterxml.jackson.databind.JsonNode;
import io.squall.functions.api.SamplingOptions;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The generation parameters chat completions and completions share, validated.
 *
 * @param model         the requested model name, not null
 * @param maxTokens     most tokens to generate per choice, or null to fill the context
 * @param n             choices to generate, at least 1
 * @param stop          stop strings, never null
 * @param sampling      temperature, top-p/top-k, penalties and seed
 * @param topLogprobs   alternatives per token to report, or -1 when logprobs are off
 * @param stream        whether to stream chunks
 * @param includeUsage  whether a streamed response ends with a usage chunk
 * @param ignoreEos     extension: keep generating past end-of-generation tokens (benchmarks)
 */
public record GenerationParams(String model, Integer maxTokens, int n, List<String> stop, SamplingOptions sampling,
                               int topLogprobs, boolean stream, boolean includeUsage, boolean ignoreEos) {

    /** Most choices one request may ask for. */
    public static final int MAX_N = 16;
    /** Most stop strings one request may give. */
    public static final int MAX_STOP = 16;

    public GenerationParams {
        stop = List.copyOf(stop);
    }

    /**
     * Reads the shared fields of a request object.
     *
     * @param maxTokensFields the names that give the token budget, first given wins
     *                        ({@code max_completion_tokens}, {@code max_tokens} for chat)
     * @param topLogprobs     the endpoint's already-parsed logprobs setting, or -1
     */
    static GenerationParams read(JsonNode request, List<String> maxTokensFields, int topLogprobs) {
        String model = Fields.requiredString(request, "model");
        Integer maxTokens = null;
        for (String field : maxTokensFields) {
            maxTokens = Fields.integer(request, field, 1, Integer.MAX_VALUE);
            if (maxTokens != null) {
                break;
            }
        }
        Integer n = Fields.integer(request, "n", 1, MAX_N);
        Double temperature = Fields.number(request, "temperature", 0, 2);
        Double topP = Fields.number(request, "top_p", 0, 1);
        if (topP != null && topP == 0) {
            throw ApiException.invalid("top_p", "'top_p' must be greater than 0");
        }
        Integer topK = Fields.integer(request, "top_k", -1, Integer.MAX_VALUE);
        Double minP = Fields.number(request, "min_p", 0, 1);
        Double repetition = Fields.number(request, "repetition_penalty",
                1 / SamplingOptions.MAX_REPETITION_PENALTY, SamplingOptions.MAX_REPETITION_PENALTY);
        Double presence = Fields.number(request, "presence_penalty", -SamplingOptions.MAX_PENALTY, SamplingOptions.MAX_PENALTY);
        Double frequency = Fields.number(request, "frequency_penalty", -SamplingOptions.MAX_PENALTY, SamplingOptions.MAX_PENALTY);
        Long seed = Fields.longValue(request, "seed");
        Map<Integer, Double> logitBias = logitBias(Fields.object(request, "logit_bias"));
        Fields.string(request, "user");
        boolean stream = Fields.bool(request, "stream", false);
        JsonNode streamOptions = Fields.object(request, "stream_options");
        boolean includeUsage = false;
        if (streamOptions != null) {
            // Read whatever 'stream' says: RSocket clients always stream. A whole response carries usage anyway.
            includeUsage = Fields.bool(streamOptions, "include_usage", false);
        }
        SamplingOptions sampling = new SamplingOptions(
                temperature == null ? 1.0 : temperature,
                topK == null || topK < 0 ? 0 : topK,
                topP == null ? 1.0 : topP,
                minP == null ? 0 : minP,
                repetition == null ? 1.0 : repetition,
                presence == null ? 0 : presence,
                frequency == null ? 0 : frequency,
                seed,
                logitBias);
        return new GenerationParams(model, maxTokens, n == null ? 1 : n, Fields.stop(request, MAX_STOP), sampling,
                topLogprobs, stream, includeUsage, Fields.bool(request, "ignore_eos", false));
    }

    /**
     * The extension {@code "return_routing": true}: the response reports, with its usage, which worker served
     * each choice and how much of the prompt the router believed it held.
     */
    public static boolean returnRouting(JsonNode request) {
        return Fields.bool(request, "return_routing", false);
    }

    /** The sampling options of choice {@code index}: with a seed, each choice gets its own derived seed. */
    public SamplingOptions samplingFor(int index) {
        if (sampling.seed() == null || index == 0) {
            return sampling;
        }
        SamplingOptions s = sampling;
        return new SamplingOptions(s.temperature(), s.topK(), s.topP(), s.minP(), s.repetitionPenalty(),
                s.presencePenalty(), s.frequencyPenalty(), s.seed() + index, s.logitBias());
    }

    /**
     * OpenAI's {@code logit_bias}: an object mapping token ids (as strings) to biases in [-100, 100], at most
     * {@value SamplingOptions#MAX_LOGIT_BIAS_TOKENS} entries. Ids beyond the model's vocabulary are checked where the model is known.
     */
    private static Map<Integer, Double> logitBias(JsonNode object) {
        if (object == null || object.isEmpty()) {
            return Map.of();
        }
        if (object.size() > SamplingOptions.MAX_LOGIT_BIAS_TOKENS) {
            throw ApiException.invalid("logit_bias", "'logit_bias' may hold at most " + SamplingOptions.MAX_LOGIT_BIAS_TOKENS
                    + " tokens");
        }
        Map<Integer, Double> bias = new HashMap<>();
        for (var entry : object.properties()) {
            int token;
            try {
                token = Integer.parseInt(entry.getKey());
            } catch (NumberFormatException e) {
                token = -1;
            }
            if (token < 0) {
                throw ApiException.invalid("logit_bias", "'logit_bias' keys must be token ids, got '" + entry.getKey() + "'");
            }
            JsonNode value = entry.getValue();
            if (!value.isNumber() || !(Math.abs(value.doubleValue()) <= SamplingOptions.MAX_LOGIT_BIAS)) {
                throw ApiException.invalid("logit_bias", "'logit_bias' values must be numbers between -"
                        + (int) SamplingOptions.MAX_LOGIT_BIAS + " and " + (int) SamplingOptions.MAX_LOGIT_BIAS);
            }
            bias.put(token, value.doubleValue());
        }
        return bias;
    }
}
