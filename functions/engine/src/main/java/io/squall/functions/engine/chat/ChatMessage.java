package io.squall.functions.engine.chat;

import java.util.List;
import java.util.Objects;

/**
 * One message of a conversation, shaped like an OpenAI chat message.
 *
 * @param role       {@code system}, {@code user}, {@code assistant}, {@code tool} or whatever the template knows;
 *                   not null or blank
 * @param content    the text, or the content parts; null for an assistant message that only calls tools
 * @param name       optional participant name, null when absent
 * @param toolCalls  tool calls made by an assistant message, never null (empty when none)
 * @param toolCallId for a {@code tool} message, the id of the call it answers; null otherwise
 */
public record ChatMessage(String role, Content content, String name, List<ToolCall> toolCalls, String toolCallId) {

    /** Validates the role and copies the tool calls. */
    public ChatMessage {
        if (role == null || role.isBlank()) {
            throw new IllegalArgumentException("a chat message needs a role");
        }
        toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
    }

    /** A message whose content is plain text. */
    public static ChatMessage of(String role, String text) {
        return new ChatMessage(role, new Content.Text(text), null, List.of(), null);
    }

    /** A message's content: a string, or a list of parts as in OpenAI's multi-part content. */
    public sealed interface Content {
        /** Plain text content, rendered to templates as a string. */
        record Text(String text) implements Content {
            /** Rejects null text. */
            public Text {
                Objects.requireNonNull(text, "text");
            }
        }

        /** Content parts, rendered to templates as a list of {@code {type, text}} maps. */
        record Parts(List<ContentPart> parts) implements Content {
            /** Copies the parts. */
            public Parts {
                parts = List.copyOf(parts);
            }
        }
    }

    /**
     * One content part. Only text parts reach the model through a template; other types (images) are passed to
     * the template as {@code {type}} maps and most templates skip them.
     *
     * @param type the part type, e.g. {@code text}; not null
     * @param text the text of a {@code text} part, null for other types
     */
    public record ContentPart(String type, String text) {
        /** Rejects a null type. */
        public ContentPart {
            Objects.requireNonNull(type, "type");
        }

        /** A {@code text} part. */
        public static ContentPart text(String text) {
            return new ContentPart("text", Objects.requireNonNull(text, "text"));
        }
    }

    /**
     * A function call made by the assistant.
     *
     * @param id        the call id, null when the client did not send one
     * @param name      the function's name, not null
     * @param arguments the arguments as a JSON object text, as OpenAI sends them; not null
     */
    public record ToolCall(String id, String name, String arguments) {
        /** Rejects a null name or arguments. */
        public ToolCall {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(arguments, "arguments");
        }
    }
}
