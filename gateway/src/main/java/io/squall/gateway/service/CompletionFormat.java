package io.squall.gateway.service;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.squall.functions.api.TokenChunk;
import io.squall.functions.engine.tokenizer.Tokenizer;
import io.squall.gateway.openai.Json;
import io.squall.gateway.preprocess.TextDelta;
import io.squall.gateway.routing.RouteNote;

import java.util.List;

/** {@code text_completion} objects, streamed or whole, with the legacy logprobs shape. */
final class CompletionFormat extends ResponseFormat {

    private final int[] textOffset;

    CompletionFormat(String id, long created, String model, Tokenizer tokenizer, int choices) {
        super(id, created, model, tokenizer);
        this.textOffset = new int[choices];
    }

    @Override
    String chunkObject() {
        return "text_completion";
    }

    @Override
    String chunk(int index, TextDelta delta) {
        ObjectNode root = header(chunkObject());
        choice(root.putArray("choices"), index, delta);
        return Json.write(root);
    }

    @Override
    String response(List<TextDelta> choices, TokenChunk.Usage usage, List<RouteNote> routes) {
        ObjectNode root = header(chunkObject());
        ArrayNode array = root.putArray("choices");
        for (int i = 0; i < choices.size(); i++) {
            choice(array, i, choices.get(i));
        }
        root.set("usage", usage(usage));
        routing(root, routes);
        return Json.write(root);
    }

    private void choice(ArrayNode array, int index, TextDelta delta) {
        ObjectNode choice = array.addObject();
        choice.put("index", index);
        choice.put("text", delta.text());
        if (delta.logprobs().isEmpty()) {
            choice.putNull("logprobs");
        } else {
            choice.set("logprobs", logprobs(index, delta.logprobs()));
        }
        choice.put("finish_reason", delta.isLast() ? delta.finishReason().wireName() : null);
    }

    private ObjectNode logprobs(int index, List<TokenChunk.TokenLogprobs> logprobs) {
        ObjectNode node = Json.object();
        ArrayNode tokens = node.putArray("tokens");
        ArrayNode values = node.putArray("token_logprobs");
        ArrayNode top = node.putArray("top_logprobs");
        ArrayNode offsets = node.putArray("text_offset");
        for (TokenChunk.TokenLogprobs lp : logprobs) {
            String token = tokenString(lp.tokenId());
            tokens.add(token);
            values.add(lp.logprob());
            ObjectNode alternatives = top.addObject();
            for (int k = 0; k < lp.topTokenIds().length; k++) {
                alternatives.put(tokenString(lp.topTokenIds()[k]), lp.topLogprobs()[k]);
            }
            offsets.add(textOffset[index]);
            textOffset[index] += token.length();
        }
        return node;
    }
}
