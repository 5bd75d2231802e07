package io.squall.cli.bench;

import java.util.List;
import java.util.Map;

/**
 * One request of a workload: a chat conversation (the turns so far) and the tokens to generate.
 *
 * @param messages  OpenAI chat messages, {@code {role, content}}
 * @param maxTokens tokens to generate (end-of-generation ignored, so exactly this many)
 */
public record BenchRequest(List<Map<String, String>> messages, int maxTokens) {
    public BenchRequest {
        messages = List.copyOf(messages);
    }
}
