package io.squall.functions.engine.tokenizer.core;

import io.squall.functions.engine.tokenizer.SpecialTokens;
import io.squall.functions.engine.tokenizer.TokenType;
import io.squall.functions.engine.tokenizer.Vocabulary;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * A vocabulary indexed for tokenization: text → id, llama.cpp's token attributes (after its
 * by-text adjustments), the special and end-of-generation ids, and every token's piece (the bytes it
 * decodes to). Immutable and thread-safe.
 */
public final class TokenTable {

    private static final byte[] EMPTY = new byte[0];

    private final String[] texts;
    private final float[] scores;
    private final int[] attributes;
    private final Map<String, Integer> ids;
    private final byte[][] pieces;
    private final SpecialTokens specials;
    private final int[] endOfGeneration;
    private final boolean[] isEndOfGeneration;

    /**
     * Indexes {@code vocabulary}.
     *
     * @param normalPiece the bytes a {@link TokenType#NORMAL} token's text stands for; this is where
     *                    the models differ ({@code ▁} for spaces, or the byte-level alphabet)
     * @throws IllegalArgumentException if two tokens have the same text, or a byte token is not
     *                                  spelled {@code <0xXX>}
     */
    public TokenTable(Vocabulary vocabulary, Function<String, byte[]> normalPiece) {
        int n = vocabulary.size();
        texts = new String[n];
        scores = Arrays.copyOf(vocabulary.scores(), n);
        attributes = new int[n];
        ids = HashMap.newHashMap(n);
        for (int id = 0; id < n; id++) {
            String text = vocabulary.tokens()[id];
            texts[id] = text == null || text.isEmpty() ? "[EMPTY_" + id + "]" : text;
            Integer previous = ids.putIfAbsent(texts[id], id);
            if (previous != null) {
                throw new IllegalArgumentException("duplicate token in vocabulary: '" + texts[id] + "' has ids "
                        + previous + " and " + id);
            }
            attributes[id] = TokenAttributes.of(TokenType.fromCode(vocabulary.tokenTypes()[id]));
        }
        SpecialTokenInference.Result inferred =
                SpecialTokenInference.infer(texts, attributes, vocabulary.specials(), ids);
        specials = inferred.specials();
        endOfGeneration = inferred.endOfGeneration();
        isEndOfGeneration = new boolean[n];
        for (int id : endOfGeneration) {
            isEndOfGeneration[id] = true;
        }
        pieces = new byte[n][];
        for (int id = 0; id < n; id++) {
            pieces[id] = piece(id, normalPiece);
        }
    }

    private byte[] piece(int id, Function<String, byte[]> normalPiece) {
        int attr = attributes[id];
        if ((attr & (TokenAttributes.HIDDEN_UNLESS_SPECIAL | TokenAttributes.USER_DEFINED)) != 0) {
            return texts[id].getBytes(StandardCharsets.UTF_8);
        }
        if ((attr & TokenAttributes.NORMAL) != 0) {
            return normalPiece.apply(texts[id]);
        }
        if ((attr & TokenAttributes.BYTE) != 0) {
            return new byte[] {(byte) byteValue(id)};
        }
        return EMPTY; // unused and undefined tokens decode to nothing
    }

    private int byteValue(int id) {
        String text = texts[id];
        if (text.length() != 6 || !text.startsWith("<0x") || text.charAt(5) != '>') {
            throw new IllegalArgumentException("byte token " + id + " is spelled '" + text + "', expected <0xXX>");
        }
        try {
            return Integer.parseInt(text, 3, 5, 16);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("byte token " + id + " is spelled '" + text + "', expected <0xXX>", e);
        }
    }

    /** The number of tokens. */
    public int size() {
        return texts.length;
    }

    /** The id of the token spelled {@code text}, or {@link SpecialTokens#NONE}. */
    public int id(String text) {
        Integer id = ids.get(text);
        return id == null ? SpecialTokens.NONE : id;
    }

    /** The text of token {@code id}. */
    public String text(int id) {
        return texts[checkId(id)];
    }

    /** The score of token {@code id}. */
    public float score(int id) {
        return scores[id];
    }

    /** Whether token {@code id} has any of the attribute bits in {@code mask}. */
    public boolean is(int id, int mask) {
        return (attributes[checkId(id)] & mask) != 0;
    }

    /**
     * The bytes token {@code id} decodes to, shared (do not modify): empty for control and unknown
     * tokens unless {@code renderSpecial}.
     */
    public byte[] piece(int id, boolean renderSpecial) {
        checkId(id);
        if (!renderSpecial && (attributes[id] & TokenAttributes.HIDDEN_UNLESS_SPECIAL) != 0) {
            return EMPTY;
        }
        return pieces[id];
    }

    /** The special ids, declared and inferred. */
    public SpecialTokens specials() {
        return specials;
    }

    /** Whether {@code id} ends generation. */
    public boolean isEndOfGeneration(int id) {
        return id >= 0 && id < isEndOfGeneration.length && isEndOfGeneration[id];
    }

    /** The end-of-generation ids, ascending, as a fresh array. */
    public int[] endOfGeneration() {
        return endOfGeneration.clone();
    }

    /** Throws a clear error unless {@code id} is in the vocabulary; returns it. */
    public int checkId(int id) {
        if (id < 0 || id >= texts.length) {
            throw new IllegalArgumentException("token id " + id + " is outside the vocabulary of "
                    + texts.length + " tokens");
        }
        return id;
    }
}
