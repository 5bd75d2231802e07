package io.squall.functions.engine.generate;

import io.squall.functions.api.FinishReason;
import io.squall.functions.engine.model.ForwardPass;
import io.squall.functions.engine.model.KvCache;
import io.squall.functions.engine.model.Transformer;
import io.squall.functions.engine.sampling.Sampler;
import io.squall.functions.engine.sampling.TokenHistory;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.IntPredicate;

/**
 * Runs one sequence: the prompt is prefilled in chunks of {@code prefillChunk} tokens (each chunk one
 * batched forward pass), then tokens are sampled one at a time.
 *
 * <p>Not thread-safe; owns nothing but scratch buffers.
 */
public final class Generator {

    /**
     * The outcome of a generation.
     *
     * @param tokens generated token ids, without the prompt and without the end-of-generation token
     * @param promptTokens tokens in the prompt
     * @param prefillNanos time spent on the prompt, including the first token's logits
     * @param decodeSteps single-token forward passes run after the prompt
     * @param decodeNanos time spent on those passes and on sampling
     * @param finishReason why it ended: {@link FinishReason#STOP} or {@link FinishReason#LENGTH}
     */
    public record Result(int[] tokens, int promptTokens, long prefillNanos, int decodeSteps, long decodeNanos,
                         FinishReason finishReason) {
    }

    /** Receives each generated token as soon as it is sampled. */
    @FunctionalInterface
    public interface TokenListener {
        void onToken(int token);
    }

    private final Transformer transformer;
    private final int prefillChunk;
    private final float[] logits;

    public Generator(Transformer transformer, int prefillChunk) {
        if (prefillChunk < 1) {
            throw new IllegalArgumentException("prefill chunk must be at least 1 token, got " + prefillChunk);
        }
        this.transformer = Objects.requireNonNull(transformer, "transformer");
        this.prefillChunk = prefillChunk;
        this.logits = new float[transformer.config().vocabSize()];
    }

    /**
     * Generates up to {@code maxTokens} tokens after {@code prompt}.
     *
     * @param isEndOfGeneration tokens that end the generation
     * @throws IllegalArgumentException if the prompt is empty, has ids outside the vocabulary, or does
     *                                  not fit the context
     */
    public Result generate(int[] prompt, Sampler sampler, int maxTokens, IntPredicate isEndOfGeneration,
                           TokenListener listener) {
        if (prompt.length == 0) {
            throw new IllegalArgumentException("the prompt is empty");
        }
        if (maxTokens < 0) {
            throw new IllegalArgumentException("max tokens must not be negative, got " + maxTokens);
        }
        if (prompt.length >= transformer.maxPositions()) {
            throw new IllegalArgumentException("the prompt has " + prompt.length + " tokens; the context holds "
                    + transformer.maxPositions());
        }
        KvCache cache = transformer.newCache((int) Math.min((long) prompt.length + maxTokens, transformer.maxPositions()));
        long start = System.nanoTime();
        prefill(cache, prompt);
        long prefillNanos = System.nanoTime() - start;

        TokenHistory history = new TokenHistory(prompt.length + maxTokens);
        for (int token : prompt) {
            history.add(token);
        }
        int[] generated = new int[maxTokens];
        int count = 0;
        FinishReason reason = FinishReason.LENGTH;
        int[] next = new int[1];
        int steps = 0;
        long decodeStart = System.nanoTime();
        while (count < maxTokens) {
            int token = sampler.sample(logits, history);
            if (isEndOfGeneration.test(token)) {
                reason = FinishReason.STOP;
                break;
            }
            generated[count++] = token;
            history.add(token);
            listener.onToken(token);
            if (count == maxTokens || cache.length() >= transformer.maxPositions()) {
                break;
            }
            next[0] = token;
            transformer.forward(List.of(new ForwardPass.Segment(cache, next, 0, 1, logits)));
            steps++;
        }
        long decodeNanos = System.nanoTime() - decodeStart;
        return new Result(Arrays.copyOf(generated, count), prompt.length, prefillNanos, steps, decodeNanos, reason);
    }

    /**
     * Runs {@code prompt} through the model in chunks, after what {@code cache} holds, leaving the last position's
     * logits in this generator's buffer.
     */
    public void prefill(KvCache cache, int[] prompt) {
        for (int offset = 0; offset < prompt.length; offset += prefillChunk) {
            int count = Math.min(prefillChunk, prompt.length - offset);
            boolean last = offset + count == prompt.length;
            transformer.forward(List.of(new ForwardPass.Segment(cache, prompt, offset, count, last ? logits : null)));
        }
    }
}
