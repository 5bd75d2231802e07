package io.squall.gateway.openai;

import com.fasterxml.jackson.databind.JsonNode;
import io.squall.functions.api.GenerateRequest;
import io.squall.functions.engine.chat.ChatMessage;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A validated {@code POST /v1/chat/completions} request.
 *
 * @param params   the shared generation parameters
 * @param messages the conversation, not empty; text content parts are joined into one string with newlines
 * @param tools    the tool definitions as sent, or null when none (or {@code tool_choice} is {@code none})
 */
public record ChatRequest(GenerationParams params, List<ChatMessage> messages, List<Map<String, Object>> tools) {

    private static final Set<String> ROLES = Set.of("system", "developer", "user", "assistant", "tool");

    public ChatRequest {
        messages = List.copyOf(messages);
        tools = tools == null ? null : List.copyOf(tools);
    }

    /**
     * Validates a parsed request body.
     *
     * @throws ApiException (400) naming the first field at fault
     */
    public static ChatRequest parse(JsonNode body) {
        if (!body.isObject()) {
            throw ApiException.invalid(null, "the request body must be a JSON object");
        }
        int topLogprobs = -1;
        if (Fields.bool(body, "logprobs", false)) {
            Integer top = Fields.integer(body, "top_logprobs", 0, GenerateRequest.MAX_TOP_LOGPROBS);
            topLogprobs = top == null ? 0 : top;
        } else if (Fields.given(body, "top_logprobs")) {
            throw ApiException.invalid("top_logprobs", "'top_logprobs' requires 'logprobs' to be true");
        }
        GenerationParams params = GenerationParams.read(body, List.of("max_completion_tokens", "max_tokens"), topLogprobs);
        JsonNode format = Fields.object(body, "response_format");
        if (format != null) {
            String type = Fields.requiredString(format, "type");
            if (!type.equals("text")) {
                throw ApiException.invalid("response_format", "response_format type '" + type
                        + "' is not supported: Squall does not constrain generation to JSON; use 'text'");
            }
        }
        return new ChatRequest(params, messages(body), tools(body));
    }

    static List<ChatMessage> messages(JsonNode body) {
        JsonNode array = Fields.array(body, "messages");
        if (array == null || array.isEmpty()) {
            throw new ApiException(ApiError.INVALID_REQUEST, "'messages' must be a non-empty array", "messages",
                    array == null ? "missing_required_parameter" : null);
        }
        List<ChatMessage> messages = new ArrayList<>(array.size());
        for (int i = 0; i < array.size(); i++) {
            messages.add(message(array.get(i), "messages[" + i + "]"));
        }
        return messages;
    }

    private static ChatMessage message(JsonNode node, String where) {
        if (!node.isObject()) {
            throw ApiException.invalid(where, where + " must be an object");
        }
        String role;
        try {
            role = Fields.requiredString(node, "role");
        } catch (ApiException e) {
            throw ApiException.invalid(where + ".role", where + ".role must be a string");
        }
        if (!ROLES.contains(role)) {
            throw ApiException.invalid(where + ".role", where + ".role must be one of " + ROLES + ", got '" + role + "'");
        }
        List<ChatMessage.ToolCall> toolCalls = role.equals("assistant") ? toolCalls(node, where) : List.of();
        ChatMessage.Content content = content(node.get("content"), where + ".content",
                role.equals("assistant") && !toolCalls.isEmpty());
        String name = nested(() -> Fields.string(node, "name"), where + ".name");
        String toolCallId = null;
        if (role.equals("tool")) {
            toolCallId = nested(() -> Fields.string(node, "tool_call_id"), where + ".tool_call_id");
            if (toolCallId == null) {
                throw ApiException.invalid(where + ".tool_call_id", where + ".tool_call_id is required for tool messages");
            }
        }
        // Most chat templates know no 'developer' role; it is OpenAI's new name for 'system'.
        return new ChatMessage(role.equals("developer") ? "system" : role, content, name, toolCalls, toolCallId);
    }

    private static ChatMessage.Content content(JsonNode content, String where, boolean mayBeNull) {
        if (content == null || content.isNull()) {
            if (mayBeNull) {
                return null;
            }
            throw ApiException.invalid(where, where + " is required");
        }
        if (content.isTextual()) {
            return new ChatMessage.Content.Text(content.textValue());
        }
        if (!content.isArray()) {
            throw ApiException.invalid(where, where + " must be a string or an array of content parts");
        }
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < content.size(); i++) {
            JsonNode part = content.get(i);
            String at = where + "[" + i + "]";
            if (!part.isObject()) {
                throw ApiException.invalid(at, at + " must be an object");
            }
            String type = nested(() -> Fields.requiredString(part, "type"), at + ".type");
            if (!type.equals("text")) {
                throw ApiException.invalid(at + ".type", "content parts of type '" + type + "' are not supported; only 'text'");
            }
            String partText = nested(() -> Fields.requiredString(part, "text"), at + ".text");
            if (i > 0) {
                text.append('\n');
            }
            text.append(partText);
        }
        return new ChatMessage.Content.Text(text.toString());
    }

    private static List<ChatMessage.ToolCall> toolCalls(JsonNode message, String where) {
        JsonNode calls = nested(() -> Fields.array(message, "tool_calls"), where + ".tool_calls");
        if (calls == null) {
            return List.of();
        }
        List<ChatMessage.ToolCall> result = new ArrayList<>();
        for (int i = 0; i < calls.size(); i++) {
            JsonNode call = calls.get(i);
            String at = where + ".tool_calls[" + i + "]";
            if (!call.isObject()) {
                throw ApiException.invalid(at, at + " must be an object");
            }
            JsonNode function = nested(() -> Fields.object(call, "function"), at + ".function");
            if (function == null) {
                throw ApiException.invalid(at + ".function", at + ".function is required");
            }
            String name = nested(() -> Fields.requiredString(function, "name"), at + ".function.name");
            String arguments = nested(() -> Fields.requiredString(function, "arguments"), at + ".function.arguments");
            JsonNode parsed;
            try {
                parsed = Json.MAPPER.readTree(arguments);
            } catch (Exception e) {
                parsed = null;
            }
            if (parsed == null || !parsed.isObject()) {
                throw ApiException.invalid(at + ".function.arguments", at + ".function.arguments must be a JSON object text");
            }
            result.add(new ChatMessage.ToolCall(nested(() -> Fields.string(call, "id"), at + ".id"), name, arguments));
        }
        return result;
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> tools(JsonNode body) {
        String choice = body.hasNonNull("tool_choice") && body.get("tool_choice").isTextual()
                ? body.get("tool_choice").textValue() : null;
        JsonNode tools = Fields.array(body, "tools");
        if (tools == null || tools.isEmpty() || "none".equals(choice)) {
            return null;
        }
        List<Map<String, Object>> result = new ArrayList<>();
        for (int i = 0; i < tools.size(); i++) {
            JsonNode tool = tools.get(i);
            String at = "tools[" + i + "]";
            if (!tool.isObject()) {
                throw ApiException.invalid(at, at + " must be an object");
            }
            String type = nested(() -> Fields.requiredString(tool, "type"), at + ".type");
            if (!type.equals("function")) {
                throw ApiException.invalid(at + ".type", "tools of type '" + type + "' are not supported; only 'function'");
            }
            JsonNode function = nested(() -> Fields.object(tool, "function"), at + ".function");
            if (function == null) {
                throw ApiException.invalid(at + ".function", at + ".function is required");
            }
            nested(() -> Fields.requiredString(function, "name"), at + ".function.name");
            result.add(Json.MAPPER.convertValue(tool, Map.class));
        }
        return result;
    }

    /** Runs a field read, re-labelling its error with the field's full path. */
    private static <T> T nested(java.util.function.Supplier<T> read, String path) {
        try {
            return read.get();
        } catch (ApiException e) {
            throw new ApiException(e.error(), e.getMessage().replaceFirst("^'[^']*'", path), path, e.code());
        }
    }
}
