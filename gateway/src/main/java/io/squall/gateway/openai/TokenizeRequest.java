package io.squall.gateway.openai;

import com.fasterxml.jackson.databind.JsonNode;
import io.squall.functions.engine.chat.ChatMessage;

import java.util.List;

/**
 * The body of {@code POST /tokenize}, vLLM's extension: a completion prompt ({@code "prompt"}), or a conversation
 * ({@code "messages"}) rendered by the model's chat template with the generation prompt, as generation would see it.
 *
 * @param model    the model whose tokenizer to use
 * @param prompt   the text, or null when {@code messages} are given
 * @param messages the conversation, or null when {@code prompt} is given
 */
public record TokenizeRequest(String model, String prompt, List<ChatMessage> messages) {

    /**
     * Validates a parsed body: exactly one of {@code prompt} (a string) and {@code messages}.
     *
     * @throws ApiException (400) naming the field at fault
     */
    public static TokenizeRequest parse(JsonNode body) {
        if (!body.isObject()) {
            throw ApiException.invalid(null, "the request body must be a JSON object");
        }
        String model = Fields.requiredString(body, "model");
        boolean hasPrompt = Fields.given(body, "prompt");
        if (hasPrompt == Fields.given(body, "messages")) {
            throw ApiException.invalid(hasPrompt ? "messages" : "prompt", "give exactly one of 'prompt' and 'messages'");
        }
        return hasPrompt ? new TokenizeRequest(model, Fields.requiredString(body, "prompt"), null)
                : new TokenizeRequest(model, null, ChatRequest.messages(body));
    }
}
