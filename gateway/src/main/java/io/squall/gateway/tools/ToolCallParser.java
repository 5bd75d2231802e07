package io.squall.gateway.tools;

import com.fasterxml.jackson.databind.JsonNode;
import io.squall.gateway.openai.Json;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds tool calls in a model's complete output, in the formats chat templates teach models:
 * <ul>
 *   <li>Hermes / Qwen: {@code <tool_call>{"name": ..., "arguments": {...}}</tool_call>}, any number, with text
 *       around them kept as content;</li>
 *   <li>Llama 3.x JSON: the whole output (optionally after {@code <|python_tag|>}) is
 *       {@code {"name": ..., "parameters": {...}}}, or several such objects separated by {@code ;};</li>
 *   <li>Mistral: {@code [TOOL_CALLS] [{"name": ..., "arguments": {...}}, ...]}.</li>
 * </ul>
 * Output that matches none of them, or whose JSON does not parse, is plain content. Stateless and thread-safe.
 */
public final class ToolCallParser {

    private static final Pattern HERMES = Pattern.compile("<tool_call>\\s*(.*?)\\s*(?:</tool_call>|$)", Pattern.DOTALL);
    private static final String PYTHON_TAG = "<|python_tag|>";
    private static final String MISTRAL_TAG = "[TOOL_CALLS]";

    private ToolCallParser() {
    }

    /**
     * What the output holds.
     *
     * @param content text meant for the user, or null when the output is only tool calls
     * @param calls   the tool calls, in order; empty when there are none
     */
    public record Parsed(String content, List<ToolCall> calls) {
        public Parsed {
            calls = List.copyOf(calls);
        }
    }

    /**
     * One call.
     *
     * @param id        a fresh call id ({@code call_...})
     * @param name      the function name
     * @param arguments the arguments as JSON object text
     */
    public record ToolCall(String id, String name, String arguments) {
        public ToolCall {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(arguments, "arguments");
        }
    }

    /** Parses a complete output. */
    public static Parsed parse(String output) {
        Objects.requireNonNull(output, "output");
        if (output.contains("<tool_call>")) {
            return hermes(output);
        }
        String trimmed = output.strip();
        if (trimmed.startsWith(MISTRAL_TAG)) {
            return jsonCalls(trimmed.substring(MISTRAL_TAG.length()).strip(), output);
        }
        if (trimmed.startsWith(PYTHON_TAG)) {
            trimmed = trimmed.substring(PYTHON_TAG.length()).strip();
        }
        if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
            return jsonCalls(trimmed, output);
        }
        return new Parsed(output, List.of());
    }

    private static Parsed hermes(String output) {
        Matcher matcher = HERMES.matcher(output);
        List<ToolCall> calls = new ArrayList<>();
        StringBuilder content = new StringBuilder();
        int last = 0;
        while (matcher.find()) {
            ToolCall call = call(readObject(matcher.group(1)));
            if (call == null) {
                return new Parsed(output, List.of());
            }
            calls.add(call);
            content.append(output, last, matcher.start());
            last = matcher.end();
        }
        content.append(output.substring(last));
        String text = content.toString().strip();
        return new Parsed(text.isEmpty() ? null : text, calls);
    }

    /** A JSON array of calls, one call object, or call objects separated by {@code ;}. */
    private static Parsed jsonCalls(String json, String output) {
        List<ToolCall> calls = new ArrayList<>();
        JsonNode whole = readObjectOrArray(json);
        if (whole != null && whole.isArray()) {
            for (JsonNode element : whole) {
                ToolCall call = call(element);
                if (call == null) {
                    return new Parsed(output, List.of());
                }
                calls.add(call);
            }
        } else {
            for (String part : whole != null ? List.of(json) : List.of(json.split(";"))) {
                ToolCall call = call(readObject(part.strip()));
                if (call == null) {
                    return new Parsed(output, List.of());
                }
                calls.add(call);
            }
        }
        return calls.isEmpty() ? new Parsed(output, List.of()) : new Parsed(null, calls);
    }

    private static ToolCall call(JsonNode node) {
        if (node == null || !node.isObject() || !node.path("name").isTextual()) {
            return null;
        }
        JsonNode arguments = node.has("arguments") ? node.get("arguments") : node.get("parameters");
        if (arguments != null && arguments.isTextual()) {
            arguments = readObject(arguments.textValue());
        }
        if (arguments == null || arguments.isNull()) {
            arguments = Json.object();
        }
        if (!arguments.isObject()) {
            return null;
        }
        String id = "call_" + Long.toHexString(ThreadLocalRandom.current().nextLong());
        return new ToolCall(id, node.get("name").textValue(), Json.write(arguments));
    }

    private static JsonNode readObject(String text) {
        JsonNode node = readObjectOrArray(text);
        return node != null && node.isObject() ? node : null;
    }

    private static JsonNode readObjectOrArray(String text) {
        try {
            return Json.MAPPER.readTree(text);
        } catch (Exception e) {
            return null;
        }
    }
}
