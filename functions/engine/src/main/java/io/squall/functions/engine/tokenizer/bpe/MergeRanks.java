package io.squall.functions.engine.tokenizer.bpe;

import io.squall.functions.engine.tokenizer.SpecialTokens;
import io.squall.functions.engine.tokenizer.core.TokenTable;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * BPE merge ranks keyed by the pair of symbols, llama.cpp's {@code bpe_ranks}. Pairs of two vocabulary
 * tokens (nearly all) live in an open-addressing table keyed by both ids, so a lookup allocates
 * nothing; pairs involving a text that is not a token fall back to a map keyed by text. The first of
 * duplicate merges keeps its rank, as in llama.cpp. Immutable and thread-safe.
 */
final class MergeRanks {

    private static final long EMPTY = -1L;

    private final long[] keys;
    private final int[] ranks;
    private final int mask;
    private final int shift;
    private final Map<String, Integer> byText = new HashMap<>();

    MergeRanks(String[] merges, TokenTable table) {
        int capacity = Integer.highestOneBit(Math.max(4, merges.length * 2 - 1)) << 1;
        keys = new long[capacity];
        ranks = new int[capacity];
        mask = capacity - 1;
        shift = Long.numberOfLeadingZeros(capacity) + 1;
        Arrays.fill(keys, EMPTY);
        for (int rank = 0; rank < merges.length; rank++) {
            String merge = merges[rank];
            int space = merge.indexOf(' ', 1);
            if (space < 0) {
                continue; // llama.cpp stores such an entry under an empty pair no lookup can hit
            }
            String left = merge.substring(0, space);
            String right = merge.substring(space + 1);
            int leftId = table.id(left);
            int rightId = table.id(right);
            if (leftId != SpecialTokens.NONE && rightId != SpecialTokens.NONE) {
                putIfAbsent(pair(leftId, rightId), rank);
            } else {
                byText.putIfAbsent(left + ' ' + right, rank);
            }
        }
    }

    /**
     * The rank of merging two adjacent symbols of {@code word}: the left one spans
     * {@code [start, start + leftLength)} and is token {@code leftId} ({@link SpecialTokens#NONE} if no
     * token spells it), the right one follows with {@code rightLength} characters. -1 if they do not
     * merge.
     */
    int rank(int leftId, int rightId, String word, int start, int leftLength, int rightLength) {
        if (leftId != SpecialTokens.NONE && rightId != SpecialTokens.NONE) {
            long key = pair(leftId, rightId);
            for (int slot = slot(key); ; slot = slot + 1 & mask) {
                if (keys[slot] == key) {
                    return ranks[slot];
                }
                if (keys[slot] == EMPTY) {
                    return -1;
                }
            }
        }
        int middle = start + leftLength;
        Integer rank = byText.get(word.substring(start, middle) + ' ' + word.substring(middle, middle + rightLength));
        return rank == null ? -1 : rank;
    }

    private void putIfAbsent(long key, int rank) {
        int slot = slot(key);
        while (keys[slot] != EMPTY) {
            if (keys[slot] == key) {
                return;
            }
            slot = slot + 1 & mask;
        }
        keys[slot] = key;
        ranks[slot] = rank;
    }

    private int slot(long key) {
        return (int) ((key * 0x9E3779B97F4A7C15L) >>> shift);
    }

    private static long pair(int left, int right) {
        return (long) left << 32 | right;
    }
}
