package io.squall.functions.engine.chat.jinja;

import java.util.Map;

/**
 * Writes values as Python's {@code json.dumps(value, ensure_ascii=False)} does, which is what Hugging Face's
 * {@code tojson} filter produces: {@code ", "} and {@code ": "} separators on one line, or with {@code indent},
 * one item per line and {@code ","} / {@code ": "}; keys in insertion order; non-ASCII characters kept as is.
 * Templates print tool schemas this way, so the prompt matches what the model saw in training token for token.
 * Stateless and thread-safe.
 */
public final class PythonJson {
    private PythonJson() {
    }

    /**
     * @param value  a map, iterable, array, string, number, boolean, or null
     * @param indent spaces per nesting level, or {@code null} for the single-line form
     */
    public static String dumps(Object value, Integer indent) {
        StringBuilder out = new StringBuilder();
        write(value, indent, 0, out);
        return out.toString();
    }

    private static void write(Object value, Integer indent, int depth, StringBuilder out) {
        switch (value) {
            case null -> out.append("null");
            case String s -> quote(s, out);
            case Boolean b -> out.append(b ? "true" : "false");
            case Double d when d.isNaN() -> out.append("NaN");
            case Double d when d.isInfinite() -> out.append(d > 0 ? "Infinity" : "-Infinity");
            case Number n -> out.append(n);
            case Map<?, ?> map -> {
                if (map.isEmpty()) {
                    out.append("{}");
                    return;
                }
                out.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> entry : map.entrySet()) {
                    separate(first, indent, depth + 1, out);
                    first = false;
                    quote(String.valueOf(entry.getKey()), out);
                    out.append(": ");
                    write(entry.getValue(), indent, depth + 1, out);
                }
                close(indent, depth, out);
                out.append('}');
            }
            case Iterable<?> items -> {
                if (!items.iterator().hasNext()) {
                    out.append("[]");
                    return;
                }
                out.append('[');
                boolean first = true;
                for (Object item : items) {
                    separate(first, indent, depth + 1, out);
                    first = false;
                    write(item, indent, depth + 1, out);
                }
                close(indent, depth, out);
                out.append(']');
            }
            case Object[] array -> write(java.util.Arrays.asList(array), indent, depth, out);
            default -> quote(value.toString(), out);
        }
    }

    private static void separate(boolean first, Integer indent, int depth, StringBuilder out) {
        if (!first) {
            out.append(indent == null ? ", " : ",");
        }
        if (indent != null) {
            out.append('\n').append(" ".repeat(indent * depth));
        }
    }

    private static void close(Integer indent, int depth, StringBuilder out) {
        if (indent != null) {
            out.append('\n').append(" ".repeat(indent * depth));
        }
    }

    private static void quote(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
