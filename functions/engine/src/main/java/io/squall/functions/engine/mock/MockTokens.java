package io.squall.functions.engine.mock;

import io.squall.functions.engine.tokenizer.SpecialTokens;
import io.squall.functions.engine.tokenizer.TokenType;
import io.squall.functions.engine.tokenizer.Vocabulary;
import net.openhft.hashing.LongHashFunction;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.stream.IntStream;

/**
 * The mock engine's "model": logits that make the next token a deterministic function of every token before it.
 * The prefix is hashed (XXH3-64 over its ids) and the hash names {@value #CANDIDATES} candidates among the
 * vocabulary's ordinary tokens (never a control token, so a mock sequence ends only by its token budget), with
 * falling logits over a flat floor. Greedy decoding takes the first candidate; seeded sampling draws from the same
 * distribution on any worker, so a request gives the same tokens wherever it runs, and a migrated continuation
 * (prompt plus the tokens so far) continues as the original would have.
 *
 * <p>Writing a vocabulary-sized logits row for every token would cost more than the rest of a mock step, so the
 * floor is written once per logits buffer and afterwards only the previous candidates are reset. Not thread-safe:
 * one instance per forward pass.
 */
public final class MockTokens {

    static final int CANDIDATES = 4;
    /** The logits of the candidates, first to last, over a floor of 0: at temperature 1 the first has ~40%. */
    private static final float[] LOGITS = {10f, 8f, 6f, 4f};
    private static final LongHashFunction PREFIX_HASH = LongHashFunction.xx3(0x5EEDL);

    private final int[] ordinary;
    private final int vocabSize;
    /** Per logits buffer (they belong to sequences, which come and go): the candidates written into it last. */
    private final Map<float[], int[]> written = new WeakHashMap<>();

    private MockTokens(int[] ordinary, int vocabSize) {
        if (ordinary.length < CANDIDATES) {
            throw new IllegalArgumentException("the vocabulary has fewer than " + CANDIDATES + " ordinary tokens");
        }
        this.ordinary = ordinary;
        this.vocabSize = vocabSize;
    }

    /** Candidates from {@code vocabulary}'s normal tokens (or, if it marks none, every token but the special ones). */
    public static MockTokens of(Vocabulary vocabulary) {
        int[] normal = ids(vocabulary, true);
        return new MockTokens(normal.length >= CANDIDATES ? normal : ids(vocabulary, false), vocabulary.size());
    }

    private static int[] ids(Vocabulary vocabulary, boolean normalOnly) {
        Set<Integer> special = new HashSet<>();
        for (SpecialTokens.Role role : SpecialTokens.Role.values()) {
            if (vocabulary.specials().has(role)) {
                special.add(vocabulary.specials().id(role));
            }
        }
        return IntStream.range(0, vocabulary.size())
                .filter(id -> normalOnly ? vocabulary.tokenTypes()[id] == TokenType.NORMAL.code() : !special.contains(id))
                .toArray();
    }

    /** Logits buffers must hold this many floats. */
    public int vocabSize() {
        return vocabSize;
    }

    /** The token greedy decoding picks after {@code tokens[0 .. length)}. */
    public int next(int[] tokens, int length) {
        return candidate(hash(tokens, length), 0);
    }

    /** Writes the logits that follow {@code tokens[0 .. length)} into {@code logits}. */
    public void writeLogits(int[] tokens, int length, float[] logits) {
        int[] previous = written.get(logits);
        if (previous == null) {
            Arrays.fill(logits, 0, vocabSize, 0f);
            previous = new int[CANDIDATES];
            written.put(logits, previous);
        } else {
            for (int id : previous) {
                logits[id] = 0f;
            }
        }
        long hash = hash(tokens, length);
        for (int c = 0; c < CANDIDATES; c++) {
            int id = candidate(hash, c);
            // a later candidate that collides with an earlier one must not lower its logit
            logits[id] = Math.max(logits[id], LOGITS[c]);
            previous[c] = id;
        }
    }

    private static long hash(int[] tokens, int length) {
        return PREFIX_HASH.hashInts(tokens, 0, length);
    }

    private int candidate(long hash, int c) {
        long mixed = hash + 0x9E3779B97F4A7C15L * (c + 1);
        mixed = (mixed ^ (mixed >>> 33)) * 0xFF51AFD7ED558CCDL;
        mixed ^= mixed >>> 33;
        return ordinary[(int) Math.floorMod(mixed, (long) ordinary.length)];
    }
}
