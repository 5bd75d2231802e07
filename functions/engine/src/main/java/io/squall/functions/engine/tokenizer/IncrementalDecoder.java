package io.squall.functions.engine.tokenizer;

import io.squall.functions.engine.tokenizer.core.Utf8;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * Turns a stream of generated token ids into text, one id at a time, never emitting part of a UTF-8
 * character: bytes that could still be completed by later tokens (such as the first two bytes of an
 * emoji spread over byte tokens) are held back; bytes that are invalid whatever follows become
 * U+FFFD at once.
 *
 * <p>The text is the concatenation of the tokens' pieces, as llama.cpp's server streams it, with the
 * leading-space rule of {@link DecodeOptions}: with a SentencePiece vocabulary and
 * {@link DecodeOptions#DEFAULT}, one leading space of the first token fed is removed, as
 * {@code llama_detokenize} does for a sequence that starts there; generated text, which continues a
 * prompt, is decoded with {@link DecodeOptions#CONTINUATION}, which keeps it. Unlike {@link Tokenizer#decode},
 * no clean-up of spaces before punctuation is applied (it needs look-ahead and llama.cpp's server does
 * not apply it either).
 *
 * <p>Not thread-safe: one decoder per stream. Buffering is bounded: at most 3 bytes are held back.
 */
public final class IncrementalDecoder {

    private final Tokenizer tokenizer;
    private final DecodeOptions options;
    private byte[] pending = new byte[32];
    private int pendingLength;
    private boolean first = true;

    public IncrementalDecoder(Tokenizer tokenizer, DecodeOptions options) {
        this.tokenizer = Objects.requireNonNull(tokenizer, "tokenizer");
        this.options = Objects.requireNonNull(options, "options");
    }

    /**
     * Feeds token {@code id}; returns the text completed by it (possibly empty).
     *
     * @throws IllegalArgumentException if {@code id} is outside the vocabulary
     */
    public String accept(int id) {
        byte[] piece = tokenizer.tokenBytes(id, options);
        int skip = first && tokenizer.stripsLeadingSpace(options) && piece.length > 0 && piece[0] == ' ' ? 1 : 0;
        first = false;
        int needed = pendingLength + piece.length - skip;
        if (needed > pending.length) {
            pending = Arrays.copyOf(pending, Math.max(needed, pending.length * 2));
        }
        System.arraycopy(piece, skip, pending, pendingLength, piece.length - skip);
        pendingLength = needed;
        int complete = pendingLength - Utf8.incompleteTail(pending, pendingLength);
        String text = new String(pending, 0, complete, StandardCharsets.UTF_8);
        System.arraycopy(pending, complete, pending, 0, pendingLength - complete);
        pendingLength -= complete;
        return text;
    }

    /** Feeds every id in order; returns the text they complete. */
    public String acceptAll(int... ids) {
        StringBuilder text = new StringBuilder();
        for (int id : ids) {
            text.append(accept(id));
        }
        return text.toString();
    }

    /** Whether bytes of an incomplete character are held back. */
    public boolean hasPending() {
        return pendingLength > 0;
    }

    /**
     * Ends the stream: returns the held-back bytes as text (an incomplete character becomes U+FFFD)
     * and empties the buffer. The decoder may be fed again afterwards.
     */
    public String finish() {
        String text = new String(pending, 0, pendingLength, StandardCharsets.UTF_8);
        pendingLength = 0;
        return text;
    }
}
