package io.squall.cli.bench;

import java.util.List;
import java.util.Map;

/** Where a benchmark sends its requests. Implementations are thread-safe; {@link #send} blocks until the end. */
public interface Target extends AutoCloseable {

    /** Runs one streaming request and measures it; failures are outcomes, not exceptions. */
    Outcome send(BenchRequest request);

    /** The prompt tokens {@code probe} becomes on this target (chat template included), to size prompts in tokens. */
    int promptTokens(BenchRequest probe);

    /** The token ids {@code messages} become on this target (chat template included). */
    int[] tokenize(List<Map<String, String>> messages);

    /** The token ids {@code text} becomes as a completion prompt on this target (BOS included when the model adds it). */
    int[] tokenizeText(String text);

    @Override
    default void close() {
    }
}
