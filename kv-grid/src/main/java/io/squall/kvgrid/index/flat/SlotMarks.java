package io.squall.kvgrid.index.flat;

import java.util.Arrays;

/**
 * A reusable set of table slots: a bit map over the slots plus the list of marked slots, so that
 * clearing costs O(marked), not O(slots). Not thread-safe.
 */
final class SlotMarks {

    private long[] bits = new long[1];
    private int[] marked = new int[16];
    private int count;

    /** Makes room for slots {@code 0 .. slots-1}; only while clear. */
    void ensureSlots(int slots) {
        int words = (slots + 63) >>> 6;
        if (words > bits.length) {
            bits = new long[words];
        }
    }

    /** Marks {@code slot}; false when it was marked already. */
    boolean mark(int slot) {
        long bit = 1L << slot;
        long word = bits[slot >>> 6];
        if ((word & bit) != 0) {
            return false;
        }
        bits[slot >>> 6] = word | bit;
        if (count == marked.length) {
            marked = Arrays.copyOf(marked, count * 2);
        }
        marked[count++] = slot;
        return true;
    }

    void clear() {
        for (int i = 0; i < count; i++) {
            bits[marked[i] >>> 6] = 0;
        }
        count = 0;
    }
}
