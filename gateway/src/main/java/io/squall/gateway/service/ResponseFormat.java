package io.squall.gateway.service;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.squall.functions.api.CacheSources;
import io.squall.functions.api.TokenChunk;
import io.squall.functions.engine.tokenizer.Tokenizer;
import io.squall.gateway.openai.Json;
import io.squall.gateway.preprocess.TextDelta;
import io.squall.gateway.routing.RouteDecision;
import io.squall.gateway.routing.RouteNote;

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

    /**
     * The whole response; {@code choices.get(i)} is choice i's text, counts and end, joined; {@code routes} each
     * choice's routing when the request asked for it, else empty.
     */
    abstract String response(List<TextDelta> choices, TokenChunk.Usage usage, List<RouteNote> routes);

    /** The streamed chunk that ends a stream with {@code stream_options.include_usage}; routing as in {@link #response}. */
    final String usageChunk(TokenChunk.Usage usage, List<RouteNote> routes) {
        ObjectNode root = header(chunkObject());
        root.putArray("choices");
        root.set("usage", usage(usage));
        routing(root, routes);
        return Json.write(root);
    }

    /**
     * The extension field {@code routing}: per choice, the worker that served it last, the leading prompt blocks the
     * router believed it held ({@code null} when the policy keeps no KV index) and how often the choice moved.
     */
    protected static void routing(ObjectNode root, List<RouteNote> routes) {
        if (routes.isEmpty()) {
            return;
        }
        ArrayNode array = root.putArray("routing");
        for (int i = 0; i < routes.size(); i++) {
            RouteNote note = routes.get(i);
            ObjectNode entry = array.addObject();
            entry.put("index", i);
            entry.put("worker", note.worker() == null ? null : note.worker().toString());
            if (note.overlapBlocks() == RouteDecision.UNKNOWN) {
                entry.putNull("overlap_blocks");
            } else {
                entry.put("overlap_blocks", note.overlapBlocks());
            }
            entry.put("migrations", note.migrations());
        }
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
        ObjectNode details = node.putObject("prompt_tokens_details");
        details.put("cached_tokens", usage.cachedTokens());
        CacheSources sources = usage.sources();
        if (sources != null) { // a Squall extension: where the cached tokens came from
            details.putObject("cached_tokens_by_tier").put("g1", sources.g1()).put("g2", sources.g2())
                    .put("g3", sources.g3()).put("remote", sources.remote());
        }
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
