package io.squall.knative.graph;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeType;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * One YAML mapping being read into a graph record: typed accessors that know the path of every field, so each
 * error names it, and {@link #finish()} which rejects keys nobody asked for (a misspelt field is an error, not a
 * silently ignored one). Not thread-safe; one instance per mapping per parse.
 */
final class YamlFields {


    private final JsonNode node;
    private final String path;
    private final Set<String> read = new LinkedHashSet<>();

    private YamlFields(JsonNode node, String path) {
        this.node = node;
        this.path = path;
    }

    /** The document root, which must be a mapping. */
    static YamlFields root(JsonNode document) {
        if (document == null || !document.isObject()) {
            throw new GraphException("", "the document must be a YAML mapping");
        }
        return new YamlFields(document, "");
    }

    /** The path of {@code key} in this mapping. */
    String pathOf(String key) {
        return join(path, key);
    }

    /** The path of {@code key} under {@code parent}: {@code a.b}, or {@code a["nvidia.com/gpu"]} for other keys. */
    static String join(String parent, String key) {
        String segment = key.matches("[A-Za-z0-9_-]+") ? key : "[\"" + key + "\"]";
        if (parent.isEmpty()) {
            return segment;
        }
        return segment.startsWith("[") ? parent + segment : parent + "." + segment;
    }

    boolean has(String key) {
        JsonNode value = node.get(key);
        return value != null && !value.isNull();
    }

    /** The nested mapping {@code key}, or an empty one when absent. */
    YamlFields object(String key) {
        read.add(key);
        JsonNode value = node.get(key);
        if (value == null || value.isNull()) {
            return new YamlFields(com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode(), pathOf(key));
        }
        if (!value.isObject()) {
            throw new GraphException(pathOf(key), "must be a mapping, got " + describe(value));
        }
        return new YamlFields(value, pathOf(key));
    }

    /** The keys of this mapping, in document order. */
    List<String> keys() {
        List<String> keys = new ArrayList<>();
        node.fieldNames().forEachRemaining(keys::add);
        return keys;
    }

    String requiredString(String key) {
        String value = string(key, null);
        if (value == null) {
            throw new GraphException(pathOf(key), "is required");
        }
        return value;
    }

    /** A string matching {@code pattern}; {@code rule} says in words what it must be. */
    String string(String key, String fallback, Pattern pattern, String rule) {
        String value = string(key, fallback);
        if (value != null && !pattern.matcher(value).matches()) {
            throw new GraphException(pathOf(key), "must be " + rule + ", got \"" + value + "\"");
        }
        return value;
    }

    String string(String key, String fallback) {
        read.add(key);
        JsonNode value = node.get(key);
        if (value == null || value.isNull()) {
            return fallback;
        }
        if (!value.isTextual()) {
            throw new GraphException(pathOf(key), "must be a string, got " + describe(value));
        }
        if (value.asText().isBlank()) {
            throw new GraphException(pathOf(key), "must not be empty");
        }
        return value.asText();
    }

    /** One of {@code allowed}. */
    String choice(String key, String fallback, List<String> allowed) {
        String value = string(key, fallback);
        if (value != null && !allowed.contains(value)) {
            throw new GraphException(pathOf(key), "must be one of " + allowed + ", got \"" + value + "\"");
        }
        return value;
    }

    int integer(String key, int fallback, int min, int max) {
        read.add(key);
        JsonNode value = node.get(key);
        if (value == null || value.isNull()) {
            return fallback;
        }
        if (!value.isIntegralNumber() || !value.canConvertToInt()) {
            throw new GraphException(pathOf(key), "must be a whole number, got " + describe(value));
        }
        int n = value.intValue();
        if (n < min || n > max) {
            throw new GraphException(pathOf(key), "must be within " + min + ".." + max + ", got " + n);
        }
        return n;
    }

    double number(String key, double fallback, double min) {
        read.add(key);
        JsonNode value = node.get(key);
        if (value == null || value.isNull()) {
            return fallback;
        }
        if (!value.isNumber()) {
            throw new GraphException(pathOf(key), "must be a number, got " + describe(value));
        }
        double n = value.doubleValue();
        if (!(n >= min) || Double.isInfinite(n)) {
            throw new GraphException(pathOf(key), "must be a finite number >= " + min + ", got " + value.asText());
        }
        return n;
    }

    /** A byte size: a whole number of bytes or a quantity with a unit ({@code 512Mi}, {@code 20Gi}, {@code 4G}). */
    long bytes(String key, long fallback) {
        read.add(key);
        JsonNode value = node.get(key);
        if (value == null || value.isNull()) {
            return fallback;
        }
        Long bytes = value.isIntegralNumber() && value.canConvertToLong() ? Long.valueOf(value.longValue())
                : value.isTextual() ? Quantities.bytes(value.asText()) : null;
        if (bytes == null || bytes < 0) {
            throw new GraphException(pathOf(key), "must be a byte size such as 8Gi, 512Mi or 1073741824, got "
                    + describe(value));
        }
        return bytes;
    }

    /** A list of non-empty strings, or {@code fallback} when absent. */
    List<String> strings(String key, List<String> fallback) {
        read.add(key);
        JsonNode value = node.get(key);
        if (value == null || value.isNull()) {
            return fallback;
        }
        if (!value.isArray()) {
            throw new GraphException(pathOf(key), "must be a list of strings, got " + describe(value));
        }
        List<String> items = new ArrayList<>();
        for (int i = 0; i < value.size(); i++) {
            JsonNode item = value.get(i);
            if (!item.isTextual() || item.asText().isBlank()) {
                throw new GraphException(pathOf(key) + "[" + i + "]", "must be a non-empty string, got " + describe(item));
            }
            items.add(item.asText());
        }
        return items;
    }

    /** A mapping of resource names to Kubernetes quantities, sorted by name. */
    TreeMap<String, String> quantities(String key) {
        YamlFields map = object(key);
        TreeMap<String, String> quantities = new TreeMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = map.node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> entry = it.next();
            JsonNode value = entry.getValue();
            String text = value.isNumber() ? value.asText() : value.isTextual() ? value.asText() : null;
            if (text == null || !Quantities.QUANTITY.matcher(text).matches()) {
                throw new GraphException(map.pathOf(entry.getKey()),
                        "must be a Kubernetes quantity such as 500m, 2, 8Gi, got " + describe(value));
            }
            map.read.add(entry.getKey());
            quantities.put(entry.getKey(), text);
        }
        return quantities;
    }

    /** Rejects keys of this mapping that were never read. */
    void finish() {
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!read.contains(key)) {
                throw new GraphException(pathOf(key), "unknown field; expected one of " + read);
            }
        }
    }

    String path() {
        return path;
    }

    private static String describe(JsonNode value) {
        JsonNodeType type = value.getNodeType();
        return switch (type) {
            case OBJECT -> "a mapping";
            case ARRAY -> "a list";
            case STRING -> "\"" + value.asText() + "\"";
            default -> value.toString();
        };
    }
}
