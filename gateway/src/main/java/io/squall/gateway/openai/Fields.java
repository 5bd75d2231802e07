package io.squall.gateway.openai;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;

/**
 * Typed, range-checked reads of request fields, each failure a 400 naming the parameter. An absent field
 * and an explicit JSON {@code null} both read as "not given"; unknown fields are ignored, as OpenAI does.
 */
final class Fields {

    private Fields() {
    }

    static boolean given(JsonNode object, String name) {
        JsonNode value = object.get(name);
        return value != null && !value.isNull();
    }

    static String string(JsonNode object, String name) {
        JsonNode value = object.get(name);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isTextual()) {
            throw ApiException.invalid(name, "'" + name + "' must be a string");
        }
        return value.textValue();
    }

    static String requiredString(JsonNode object, String name) {
        String value = string(object, name);
        if (value == null) {
            throw new ApiException(ApiError.INVALID_REQUEST, "'" + name + "' is required", name, "missing_required_parameter");
        }
        return value;
    }

    static Boolean bool(JsonNode object, String name) {
        JsonNode value = object.get(name);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isBoolean()) {
            throw ApiException.invalid(name, "'" + name + "' must be a boolean");
        }
        return value.booleanValue();
    }

    static boolean bool(JsonNode object, String name, boolean absent) {
        Boolean value = bool(object, name);
        return value == null ? absent : value;
    }

    /** An integer in {@code [min, max]}, or null when not given. Integral floats such as {@code 5.0} are accepted. */
    static Integer integer(JsonNode object, String name, long min, long max) {
        Long value = longValue(object, name);
        if (value == null) {
            return null;
        }
        if (value < min || value > max) {
            throw ApiException.invalid(name, "'" + name + "' must be between " + min + " and " + max + ", got " + value);
        }
        return value.intValue();
    }

    static Long longValue(JsonNode object, String name) {
        JsonNode value = object.get(name);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isNumber()) {
            throw ApiException.invalid(name, "'" + name + "' must be an integer");
        }
        if (value.isIntegralNumber() && value.canConvertToLong()) {
            return value.longValue();
        }
        if (value.isFloatingPointNumber() && value.canConvertToExactIntegral() && value.canConvertToLong()) {
            return value.longValue();
        }
        throw ApiException.invalid(name, "'" + name + "' must be an integer within 64 bits");
    }

    /** A finite number in {@code [min, max]}, or null when not given. */
    static Double number(JsonNode object, String name, double min, double max) {
        JsonNode value = object.get(name);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isNumber()) {
            throw ApiException.invalid(name, "'" + name + "' must be a number");
        }
        double number = value.doubleValue();
        if (!(number >= min && number <= max)) {
            throw ApiException.invalid(name, "'" + name + "' must be between " + min + " and " + max);
        }
        return number;
    }

    /** A JSON object field, or null when not given. */
    static JsonNode object(JsonNode object, String name) {
        JsonNode value = object.get(name);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isObject()) {
            throw ApiException.invalid(name, "'" + name + "' must be an object");
        }
        return value;
    }

    /** A JSON array field, or null when not given. */
    static JsonNode array(JsonNode object, String name) {
        JsonNode value = object.get(name);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isArray()) {
            throw ApiException.invalid(name, "'" + name + "' must be an array");
        }
        return value;
    }

    /** {@code stop}: a string or an array of up to {@code max} non-empty strings; empty list when not given. */
    static List<String> stop(JsonNode object, int max) {
        JsonNode value = object.get("stop");
        if (value == null || value.isNull()) {
            return List.of();
        }
        List<String> stops = new ArrayList<>();
        if (value.isTextual()) {
            stops.add(value.textValue());
        } else if (value.isArray()) {
            if (value.size() > max) {
                throw ApiException.invalid("stop", "'stop' holds at most " + max + " strings, got " + value.size());
            }
            for (JsonNode element : value) {
                if (!element.isTextual()) {
                    throw ApiException.invalid("stop", "'stop' must be a string or an array of strings");
                }
                stops.add(element.textValue());
            }
        } else {
            throw ApiException.invalid("stop", "'stop' must be a string or an array of strings");
        }
        for (String stop : stops) {
            if (stop.isEmpty()) {
                throw ApiException.invalid("stop", "stop strings must not be empty");
            }
        }
        return List.copyOf(stops);
    }
}
