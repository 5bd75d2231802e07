package io.squall.functions.engine.chat;

import java.util.List;
import java.util.Map;

/**
 * What one rendering of a chat template needs from the request.
 *
 * @param messages            the conversation, in order; not null, may be empty (some templates then raise)
 * @param tools               tool definitions as JSON-schema maps ({@code {"type":"function","function":{...}}}),
 *                            exactly as the client sent them; null when the request has no tools
 * @param addGenerationPrompt whether to end with the header that starts the assistant's reply
 */
public record ChatTemplateInput(List<ChatMessage> messages, List<Map<String, Object>> tools,
                                boolean addGenerationPrompt) {
    /** Copies the lists; {@code tools} stays null when absent. */
    public ChatTemplateInput {
        messages = List.copyOf(messages);
        tools = tools == null ? null : List.copyOf(tools);
    }

    /** Messages only, no tools, ending with the generation prompt: the usual chat completion. */
    public static ChatTemplateInput of(List<ChatMessage> messages) {
        return new ChatTemplateInput(messages, null, true);
    }
}
