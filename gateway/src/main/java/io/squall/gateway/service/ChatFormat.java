package io.squall.gateway.service;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.squall.functions.api.FinishReason;
import io.squall.functions.api.TokenChunk;
import io.squall.functions.engine.tokenizer.Tokenizer;
import io.squall.gateway.openai.Json;
import io.squall.gateway.preprocess.TextDelta;
import io.squall.gateway.routing.RouteNote;
import io.squall.gateway.tools.ToolCallParser;

import java.util.List;

/**
 * {@code chat.completion} and {@code chat.completion.chunk} objects. When tools are active, a choice's text
 * arrives whole (the service joins it) and is parsed for tool calls before it is written.
 */
final class ChatFormat extends ResponseFormat {

    private final boolean toolsActive;
    private final boolean[] started;

    ChatFormat(String id, long created, String model, Tokenizer tokenizer, int choices, boolean toolsActive) {
        super(id, created, model, tokenizer);
        this.toolsActive = toolsActive;
        this.started = new boolean[choices];
    }

    @Override
    String chunkObject() {
        return "chat.completion.chunk";
    }

    @Override
    String chunk(int index, TextDelta delta) {
        ObjectNode root = header(chunkObject());
        ObjectNode choice = root.putArray("choices").addObject();
        choice.put("index", index);
        ObjectNode message = choice.putObject("delta");
        if (!started[index]) {
            started[index] = true;
            message.put("role", "assistant");
        }
        String finish = writeMessage(message, delta, index);
        if (!delta.logprobs().isEmpty()) {
            choice.set("logprobs", logprobs(delta.logprobs()));
        } else {
            choice.putNull("logprobs");
        }
        choice.put("finish_reason", finish);
        return Json.write(root);
    }

    @Override
    String response(List<TextDelta> choices, TokenChunk.Usage usage, List<RouteNote> routes) {
        ObjectNode root = header("chat.completion");
        ArrayNode array = root.putArray("choices");
        for (int i = 0; i < choices.size(); i++) {
            TextDelta delta = choices.get(i);
            ObjectNode choice = array.addObject();
            choice.put("index", i);
            ObjectNode message = choice.putObject("message");
            message.put("role", "assistant");
            String finish = writeMessage(message, delta, -1);
            if (!message.has("content")) {
                message.putNull("content");
            }
            choice.set("logprobs", delta.logprobs().isEmpty() ? null : logprobs(delta.logprobs()));
            choice.put("finish_reason", finish);
        }
        root.set("usage", usage(usage));
        routing(root, routes);
        return Json.write(root);
    }

    /**
     * Writes content or tool calls into a message or delta; returns the finish reason (null mid-stream).
     *
     * @param streamIndex the choice index for streamed tool calls' {@code index}, or -1 for a whole message
     */
    private String writeMessage(ObjectNode message, TextDelta delta, int streamIndex) {
        if (!delta.isLast()) {
            message.put("content", delta.text());
            return null;
        }
        if (toolsActive) {
            ToolCallParser.Parsed parsed = ToolCallParser.parse(delta.text());
            if (!parsed.calls().isEmpty()) {
                if (parsed.content() != null) {
                    message.put("content", parsed.content());
                }
                ArrayNode calls = message.putArray("tool_calls");
                for (int i = 0; i < parsed.calls().size(); i++) {
                    ToolCallParser.ToolCall call = parsed.calls().get(i);
                    ObjectNode node = calls.addObject();
                    if (streamIndex >= 0) {
                        node.put("index", i);
                    }
                    node.put("id", call.id());
                    node.put("type", "function");
                    node.putObject("function").put("name", call.name()).put("arguments", call.arguments());
                }
                return FinishReason.TOOL_CALLS.wireName();
            }
        }
        if (!delta.text().isEmpty() || streamIndex < 0) {
            message.put("content", delta.text());
        }
        return delta.finishReason().wireName();
    }

    private ObjectNode logprobs(List<TokenChunk.TokenLogprobs> logprobs) {
        ObjectNode node = Json.object();
        ArrayNode content = node.putArray("content");
        for (TokenChunk.TokenLogprobs lp : logprobs) {
            ObjectNode entry = content.addObject();
            entry.put("token", tokenString(lp.tokenId()));
            entry.put("logprob", lp.logprob());
            putBytes(entry, lp.tokenId());
            ArrayNode top = entry.putArray("top_logprobs");
            for (int k = 0; k < lp.topTokenIds().length; k++) {
                ObjectNode alternative = top.addObject();
                alternative.put("token", tokenString(lp.topTokenIds()[k]));
                alternative.put("logprob", lp.topLogprobs()[k]);
                putBytes(alternative, lp.topTokenIds()[k]);
            }
        }
        return node;
    }
}
