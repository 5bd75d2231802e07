package io.squall.functions.engine.sampling;

import java.util.Arrays;

/**
 * The token ids a sequence has seen so far (prompt, then generated tokens), as a growable {@code int[]}:
 * the repetition penalties read its tail. Appending is amortised O(1) and never boxes.
 *
 * <p>Not thread-safe: owned by the sequence, like its {@link Sampler}.
 */
public final class TokenHistory {
    private int[] tokens;
    private int size;

    /** An empty history with room for {@code initialCapacity} tokens before it grows. */
    public TokenHistory(int initialCapacity) {
        if (initialCapacity < 0) {
            throw new IllegalArgumentException("initialCapacity must be >= 0, got " + initialCapacity);
        }
        this.tokens = new int[initialCapacity];
    }

    /** A history holding a copy of {@code tokens}, e.g. the prompt. */
    public static TokenHistory of(int... tokens) {
        TokenHistory history = new TokenHistory(Math.max(16, tokens.length + tokens.length / 2));
        System.arraycopy(tokens, 0, history.tokens, 0, tokens.length);
        history.size = tokens.length;
        return history;
    }

    /** Appends one token id (a generated token). */
    public void add(int token) {
        if (size == tokens.length) {
            tokens = Arrays.copyOf(tokens, Math.max(16, size * 2));
        }
        tokens[size++] = token;
    }

    /** Number of tokens held. */
    public int size() {
        return size;
    }

    /** The token at {@code index}, counting from the first prompt token. */
    public int get(int index) {
        if (index < 0 || index >= size) {
            throw new IndexOutOfBoundsException("index " + index + " outside history of " + size + " tokens");
        }
        return tokens[index];
    }

    /** Copies {@code length} tokens starting at {@code from} into {@code dest[0..length)}. */
    void copyRange(int from, int length, int[] dest) {
        System.arraycopy(tokens, from, dest, 0, length);
    }

    /** A copy of the tokens held. */
    public int[] toArray() {
        return Arrays.copyOf(tokens, size);
    }
}
