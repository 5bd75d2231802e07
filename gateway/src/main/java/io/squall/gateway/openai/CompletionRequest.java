package io.squall.gateway.openai;

import com.fasterxml.jackson.databind.JsonNode;

import io.squall.functions.api.GenerateRequest;
import java.util.ArrayList;
import java.util.List;

/**
 * A validated {@code POST /v1/completions} request.
 *
 * @param params  the shared generation parameters
 * @param prompts the prompts, at least one; each choice index is {@code promptIndex * n + i}
 * @param echo    whether each choice's text starts with its prompt (a token-id prompt as decoded text)
 */
public record CompletionRequest(GenerationParams params, List<Prompt> prompts, boolean echo) {

    /** Most prompts one request may batch. */
    public static final int MAX_PROMPTS = 16;

    public CompletionRequest {
        prompts = List.copyOf(prompts);
    }

    /** One prompt: text to tokenize, or token ids used exactly as given. */
    public sealed interface Prompt {
        /** A text prompt, tokenized as the model says (BOS when the model adds one). */
        record Text(String text) implements Prompt {
        }

        /** Token ids, used as given. */
        record Tokens(int[] ids) implements Prompt {
        }
    }

    /**
     * Validates a parsed request body.
     *
     * @throws ApiException (400) naming the first field at fault
     */
    public static CompletionRequest parse(JsonNode body) {
        if (!body.isObject()) {
            throw ApiException.invalid(null, "the request body must be a JSON object");
        }
        Integer logprobs = Fields.integer(body, "logprobs", 0, GenerateRequest.MAX_TOP_LOGPROBS);
        GenerationParams params = GenerationParams.read(body, List.of("max_tokens"), logprobs == null ? -1 : logprobs);
        if (params.maxTokens() == null && !Fields.given(body, "max_tokens")) {
            // OpenAI's completions default: 16 tokens.
            params = new GenerationParams(params.model(), 16, params.n(), params.stop(), params.sampling(),
                    params.topLogprobs(), params.stream(), params.includeUsage(), params.ignoreEos());
        }
        boolean echo = Fields.bool(body, "echo", false);
        if (echo && logprobs != null) {
            throw ApiException.invalid("echo", "'echo' with 'logprobs' is not supported: the log-probabilities of "
                    + "prompt tokens are not computed");
        }
        if (Fields.given(body, "suffix")) {
            throw ApiException.invalid("suffix", "'suffix' is not supported");
        }
        Integer bestOf = Fields.integer(body, "best_of", 1, GenerationParams.MAX_N);
        if (bestOf != null && bestOf != params.n()) {
            throw ApiException.invalid("best_of", "'best_of' other than 'n' is not supported");
        }
        return new CompletionRequest(params, prompts(body.get("prompt")), echo);
    }

    private static List<Prompt> prompts(JsonNode prompt) {
        if (prompt == null || prompt.isNull()) {
            throw new ApiException(ApiError.INVALID_REQUEST, "'prompt' is required", "prompt", "missing_required_parameter");
        }
        if (prompt.isTextual()) {
            return List.of(new Prompt.Text(prompt.textValue()));
        }
        if (!prompt.isArray() || prompt.isEmpty()) {
            throw ApiException.invalid("prompt", "'prompt' must be a string, an array of strings, an array of token ids "
                    + "or an array of token id arrays, and not empty");
        }
        if (prompt.get(0).isNumber()) {
            return List.of(new Prompt.Tokens(tokenIds(prompt, "prompt")));
        }
        if (prompt.size() > MAX_PROMPTS) {
            throw ApiException.invalid("prompt", "'prompt' batches at most " + MAX_PROMPTS + " prompts");
        }
        List<Prompt> prompts = new ArrayList<>();
        for (int i = 0; i < prompt.size(); i++) {
            JsonNode element = prompt.get(i);
            if (element.isTextual()) {
                prompts.add(new Prompt.Text(element.textValue()));
            } else if (element.isArray() && !element.isEmpty()) {
                prompts.add(new Prompt.Tokens(tokenIds(element, "prompt[" + i + "]")));
            } else {
                throw ApiException.invalid("prompt", "prompt[" + i + "] must be a string or a non-empty array of token ids");
            }
        }
        return prompts;
    }

    private static int[] tokenIds(JsonNode array, String where) {
        int[] ids = new int[array.size()];
        for (int i = 0; i < ids.length; i++) {
            JsonNode id = array.get(i);
            if (!id.isIntegralNumber() || !id.canConvertToInt() || id.intValue() < 0) {
                throw ApiException.invalid("prompt", where + "[" + i + "] must be a non-negative token id");
            }
            ids[i] = id.intValue();
        }
        return ids;
    }
}
