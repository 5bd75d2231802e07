package io.squall.gateway.openai;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The gateway's JSON: strict parsing of request bodies (UTF-8 only, no trailing content, bounded nesting
 * and sizes) and compact writing of responses. Thread-safe.
 */
public final class Json {

    /** Deepest nesting of arrays and objects accepted in a request. */
    public static final int MAX_NESTING_DEPTH = 64;

    /** The shared mapper; configured once, safe to share. */
    public static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .disable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .build();

    static {
        MAPPER.getFactory().setStreamReadConstraints(StreamReadConstraints.builder()
                .maxNestingDepth(MAX_NESTING_DEPTH)
                .maxNumberLength(64)
                .build());
    }

    private Json() {
    }

    /**
     * Parses a request body.
     *
     * @throws ApiException (400) if the body is empty, not valid UTF-8 JSON, too deeply nested, or not one value
     */
    public static JsonNode parse(byte[] body) {
        if (body == null || body.length == 0) {
            throw ApiException.invalid(null, "the request body is empty; expected a JSON object");
        }
        try {
            JsonNode node = MAPPER.readTree(body);
            if (node == null || node.isMissingNode()) {
                throw ApiException.invalid(null, "the request body is empty; expected a JSON object");
            }
            return node;
        } catch (JsonProcessingException e) {
            throw new ApiException(ApiError.INVALID_REQUEST, "the request body is not valid JSON: "
                    + e.getOriginalMessage(), null, "invalid_json");
        } catch (IOException e) {
            throw new ApiException(ApiError.INVALID_REQUEST, "the request body could not be read", null, "invalid_json");
        }
    }

    /** A new empty object node. */
    public static ObjectNode object() {
        return MAPPER.createObjectNode();
    }

    /** Compact JSON text of {@code node}. */
    public static String write(JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The OpenAI error object {@code {"error":{"message","type","param","code"}}} for {@code failure}. */
    public static String error(ApiException failure) {
        ObjectNode error = object();
        error.put("message", failure.getMessage());
        error.put("type", failure.error().type());
        error.put("param", failure.param());
        error.put("code", failure.code());
        ObjectNode root = object();
        root.set("error", error);
        return write(root);
    }
}
