package io.squall.gateway.service;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.squall.functions.api.TokenChunk;
import io.squall.functions.engine.tokenizer.Tokenizer;
import io.squall.gateway.openai.Json;
import io.squall.gateway.preprocess.TextDelta;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Writes one endpoint's OpenAI response shapes: streamed chunks, the final usage chunk, and the whole
 * non-streamed response. One instance per request; not thread-safe (streamed chunks are written in order).
 */
abstract sealed class ResponseFormat permits ChatFormat, CompletionFormat {

    protected final String id;
    protected final long created;
    protected final String model;
    protected final Tokenizer tokenizer;

    ResponseFormat(String id, long created, String model, Tokenizer tokenizer) {
        this.id = id;
        this.created = created;
        this.model = model;
        this.tokenizer = tokenizer;
    }

    /** A streamed chunk for choice {@code index}. */
    abstract String chunk(int index, TextDelta delta);

    /** The whole response; {@code choices.get(i)} is choice i's text, counts and end, joined. */
    abstract String response(List<TextDelta> choices, TokenChunk.Usage usage);

    /** The streamed chunk that ends a stream with {@code stream_options.include_usage}. */
    final String usageChunk(TokenChunk.Usage usage) {
        ObjectNode root = header(chunkObject());
        root.putArray("choices");
        root.set("usage", usage(usage));
        return Json.write(root);
    }

    abstract String chunkObject();

    protected final ObjectNode header(String object) {
        ObjectNode root = Json.object();
        root.put("id", id);
        root.put("object", object);
        root.put("created", created);
        root.put("model", model);
        root.put("system_fingerprint", "squall");
        return root;
    }

    protected static ObjectNode usage(TokenChunk.Usage usage) {
        ObjectNode node = Json.object();
        node.put("prompt_tokens", usage.promptTokens());
        node.put("completion_tokens", usage.completionTokens());
        node.put("total_tokens", usage.promptTokens() + usage.completionTokens());
        node.putObject("prompt_tokens_details").put("cached_tokens", usage.cachedTokens());
        return node;
    }

    protected final String tokenString(int id) {
        return new String(tokenizer.tokenBytes(id), StandardCharsets.UTF_8);
    }

    protected final void putBytes(ObjectNode node, int id) {
        ArrayNode bytes = node.putArray("bytes");
        for (byte b : tokenizer.tokenBytes(id)) {
            bytes.add(b & 0xFF);
        }
    }
}
