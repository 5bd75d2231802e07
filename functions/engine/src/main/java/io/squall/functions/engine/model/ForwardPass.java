package io.squall.functions.engine.model;

import io.squall.kvgrid.pool.KvLayout;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;

/**
 * One step of a decoder over a batch of sequences: what a batching scheduler runs. {@link Transformer} computes
 * it with real weights and kernels; a simulated pass (the mock engine) keeps the block accounting and token
 * stream of a real one but takes its time from a timing model.
 *
 * <p>Implementations are not thread-safe: one scheduler thread calls {@link #forward} at a time.
 */
public interface ForwardPass {

    /**
     * A run of tokens of one sequence, appended at the end of its cache.
     *
     * @param cache the sequence's cache; its length is the position of {@code tokens[offset]}
     * @param tokens token ids
     * @param offset first token to run
     * @param count tokens to run, at least 1
     * @param logits receives the logits of the last token ({@code vocabSize} floats), or {@code null} for none
     */
    record Segment(KvCache cache, int[] tokens, int offset, int count, float[] logits) {
        public Segment {
            Objects.requireNonNull(cache, "cache");
            Objects.requireNonNull(tokens, "tokens");
            Objects.checkFromIndexSize(offset, count, tokens.length);
            if (count < 1) {
                throw new IllegalArgumentException("a segment runs at least one token");
            }
        }
    }

    /** Token ids run and produced are within {@code [0, vocabSize())}; logits buffers hold this many floats. */
    int vocabSize();

    /** The longest sequence this pass runs, in tokens. */
    int maxPositions();

    /** The KV page this pass reads and writes, with {@code blockSize} tokens per page. */
    KvLayout kvLayout(int blockSize);

    /**
     * Runs {@code segments} (each of a different sequence), appending their positions to their caches and
     * writing the requested logits.
     *
     * @throws IllegalArgumentException if a token id is out of the vocabulary, a sequence would exceed
     *                                  {@link #maxPositions()}, or two segments share a cache; nothing
     *                                  is changed then
     */
    void forward(List<Segment> segments);

    /**
     * Checks {@code segments} as {@link #forward} promises, before anything changes.
     *
     * @return the rows (tokens) the segments hold together
     */
    static int checkSegments(List<Segment> segments, int vocabSize, int maxPositions) {
        if (segments.isEmpty()) {
            throw new IllegalArgumentException("nothing to run: no segments");
        }
        IdentityHashMap<KvCache, Boolean> seen = new IdentityHashMap<>();
        int rows = 0;
        for (Segment segment : segments) {
            if (seen.put(segment.cache(), Boolean.TRUE) != null) {
                throw new IllegalArgumentException("two segments of one forward pass share a cache");
            }
            int end = segment.cache().length() + segment.count();
            if (end > maxPositions) {
                throw new IllegalArgumentException("sequence of " + end + " tokens exceeds the context of "
                        + maxPositions + " tokens");
            }
            for (int j = 0; j < segment.count(); j++) {
                int token = segment.tokens()[segment.offset() + j];
                if (token < 0 || token >= vocabSize) {
                    throw new IllegalArgumentException("token id " + token + " is outside the vocabulary of "
                            + vocabSize + " tokens");
                }
            }
            if (segment.logits() != null && segment.logits().length < vocabSize) {
                throw new IllegalArgumentException("logits buffer of " + segment.logits().length
                        + " floats is smaller than the vocabulary of " + vocabSize);
            }
            rows += segment.count();
        }
        return rows;
    }
}
