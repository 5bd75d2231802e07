package io.squall.cli.bench;

/** Where a benchmark sends its requests. Implementations are thread-safe; {@link #send} blocks until the end. */
public interface Target extends AutoCloseable {

    /** Runs one streaming request and measures it; failures are outcomes, not exceptions. */
    Outcome send(BenchRequest request);

    /** The prompt tokens {@code probe} becomes on this target (chat template included), to size prompts in tokens. */
    int promptTokens(BenchRequest probe);

    @Override
    default void close() {
    }
}
