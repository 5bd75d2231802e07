package io.squall.functions.engine.batch;

import io.squall.functions.api.CacheSources;
import io.squall.functions.api.FinishReason;
import io.squall.functions.engine.sampling.SampledToken;
import io.squall.kvgrid.BlockHash;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Receives one sequence's output. Called on the scheduler's thread, in order, never concurrently, and
 * never more {@link #onToken} calls than the demand signalled through {@link Generation#request}; must
 * not block. After {@link #onFinish} or {@link #onError} nothing more is called.
 */
public interface TokenSink {

    /**
     * A generated token.
     *
     * @param detail log-probabilities when the request asked for them, else {@code null}
     */
    void onToken(int token, SampledToken detail);

    /**
     * Full prompt block {@code index} (from 0) holds its keys and values, whether reused from the cache,
     * onboarded or just computed; called once per block, in order, as soon as it is ready, so a prefill
     * worker can ship it while later chunks are still computing. {@code page} is valid only during the
     * call. Ignored by default.
     */
    default void onPromptBlock(int index, BlockHash hash, MemorySegment page) {
    }

    /** Generation ended normally. */
    void onFinish(FinishReason reason, Usage usage);

    /** Generation failed; {@code error} says why. */
    void onError(Throwable error);

    /**
     * Token counts of a finished sequence.
     *
     * @param promptTokens tokens in the prompt
     * @param completionTokens tokens emitted
     * @param cachedTokens prompt tokens whose KV was reused rather than computed
     * @param sources the tiers {@code cachedTokens} came from
     */
    record Usage(int promptTokens, int completionTokens, int cachedTokens, CacheSources sources) {
        public Usage {
            Objects.requireNonNull(sources, "sources");
        }
    }
}
