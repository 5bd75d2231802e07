package io.squall.gateway.preprocess;

import io.squall.functions.engine.chat.ChatMessage;
import io.squall.functions.engine.chat.ChatTemplateException;
import io.squall.functions.engine.chat.ChatTemplateInput;
import io.squall.functions.engine.tokenizer.EncodeOptions;
import io.squall.gateway.ModelEndpoint;
import io.squall.gateway.openai.ApiError;
import io.squall.gateway.openai.ApiException;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * Turns a request's conversation or prompt into the token ids a worker continues, and checks them
 * against the model's context. Stateless and thread-safe; rendering and tokenizing are CPU work, so
 * call it off event-loop threads.
 */
public final class Preprocessor {

    private final ModelEndpoint model;
    private final String bosText;

    public Preprocessor(ModelEndpoint model) {
        this.model = Objects.requireNonNull(model, "model");
        int bos = model.tokenizer().specialTokens().bos();
        this.bosText = bos >= 0 ? model.tokenizer().tokenText(bos) : "";
    }

    /**
     * Renders the conversation through the model's chat template, with the generation prompt, and tokenizes it.
     *
     * @param tools tool definitions to render, or null
     * @throws ApiException (400) if the model's template ignores tools while tools were given, or cannot render
     *                      the conversation
     */
    public int[] chat(List<ChatMessage> messages, List<Map<String, Object>> tools) {
        String prompt = render(messages, tools);
        if (tools != null && prompt.equals(render(messages, null))) {
            throw ApiException.invalid("tools", "this model's chat template does not render tools, so the model "
                    + "cannot be told about them; send the request without 'tools'");
        }
        // A template that writes the BOS text itself must not get a second BOS from the tokenizer.
        boolean addSpecial = bosText.isEmpty() || !prompt.startsWith(bosText);
        return model.tokenizer().encode(prompt, new EncodeOptions(addSpecial, true));
    }

    private String render(List<ChatMessage> messages, List<Map<String, Object>> tools) {
        try {
            return model.template().render(new ChatTemplateInput(messages, tools, true));
        } catch (ChatTemplateException e) {
            // Whether the template raised or failed on this input, the conversation is what it cannot take.
            throw ApiException.invalid("messages", "the model's chat template cannot render this conversation: "
                    + e.getMessage());
        } catch (IllegalArgumentException e) {
            throw ApiException.invalid("messages", e.getMessage());
        }
    }

    /** Tokenizes a completion prompt as the model says (BOS when it adds one, control tokens parsed). */
    public int[] text(String prompt) {
        return model.tokenizer().encode(prompt, EncodeOptions.PROMPT);
    }

    /**
     * Checks token ids given by the client.
     *
     * @throws ApiException (400) if an id is outside the vocabulary
     */
    public int[] tokens(int[] ids) {
        int vocab = model.tokenizer().vocabularySize();
        for (int id : ids) {
            if (id >= vocab) {
                throw ApiException.invalid("prompt", "token id " + id + " is outside the vocabulary of " + vocab);
            }
        }
        return ids;
    }

    /**
     * Checks the token ids of a {@code logit_bias}.
     *
     * @throws ApiException (400) if an id is outside the vocabulary
     */
    public void checkLogitBias(Map<Integer, Double> bias) {
        int vocab = model.tokenizer().vocabularySize();
        for (int id : bias.keySet()) {
            if (id >= vocab) {
                throw ApiException.invalid("logit_bias", "token id " + id + " is outside the vocabulary of " + vocab);
            }
        }
    }

    /**
     * The token budget of one sequence: {@code maxTokens}, or what is left of the context when null. The one
     * check of a prompt's length on the request path: the context is what the model's workers advertise, so a
     * request that passes fits whichever worker serves it, over HTTP and RSocket alike.
     *
     * @throws ApiException (400, code {@code context_length_exceeded}) if the prompt and budget do not fit;
     *                      (503) if no worker serves the model now
     */
    public int budget(int promptTokens, Integer maxTokens) {
        if (promptTokens == 0) {
            throw ApiException.invalid("prompt", "the prompt is empty after tokenization");
        }
        OptionalInt advertised = model.context().tokens();
        if (advertised.isEmpty()) {
            throw new ApiException(ApiError.UNAVAILABLE, "no worker serves this model right now; retry once one has "
                    + "joined", null, "model_not_ready");
        }
        int context = advertised.getAsInt();
        if (promptTokens >= context) {
            throw new ApiException(ApiError.INVALID_REQUEST, "This model's maximum context length is " + context
                    + " tokens. However, your prompt has " + promptTokens + " tokens, leaving no room to generate.",
                    "messages", "context_length_exceeded");
        }
        if (maxTokens == null) {
            return context - promptTokens;
        }
        if ((long) promptTokens + maxTokens > context) {
            throw new ApiException(ApiError.INVALID_REQUEST, "This model's maximum context length is " + context
                    + " tokens. However, you requested " + ((long) promptTokens + maxTokens) + " tokens (" + promptTokens
                    + " in the prompt, " + maxTokens + " for the completion). Please reduce the prompt or the "
                    + "completion length.", "max_tokens", "context_length_exceeded");
        }
        return maxTokens;
    }
}
