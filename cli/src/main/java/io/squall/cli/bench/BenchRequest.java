package io.squall.cli.bench;

import java.util.List;
import java.util.Map;

/**
 * One request of a workload: a chat conversation (the turns so far), or a prompt given as token ids (a trace
 * replay, which must control the exact tokens to keep the trace's prefix sharing), and the tokens to generate.
 *
 * @param messages  OpenAI chat messages, {@code {role, content}}; empty for a token prompt
 * @param prompt    the prompt's token ids, used exactly as given; null for a chat request
 * @param maxTokens tokens to generate (end-of-generation ignored, so exactly this many)
 */
public record BenchRequest(List<Map<String, String>> messages, int[] prompt, int maxTokens) {

    public BenchRequest {
        messages = List.copyOf(messages);
        if (messages.isEmpty() == (prompt == null)) {
            throw new IllegalArgumentException("a bench request is chat messages or a token prompt, not both");
        }
    }

    /** A chat request. */
    public BenchRequest(List<Map<String, String>> messages, int maxTokens) {
        this(messages, null, maxTokens);
    }

    /** A completion of exactly these prompt tokens. */
    public static BenchRequest tokens(int[] prompt, int maxTokens) {
        return new BenchRequest(List.of(), prompt.clone(), maxTokens);
    }

    /** Whether the prompt is token ids rather than a conversation. */
    public boolean isTokens() {
        return prompt != null;
    }
}
