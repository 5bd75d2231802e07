package io.squall.kvgrid.index.flat;

import java.util.Arrays;

/**
 * One worker's reverse lookup, kept lazily: an append-only log of the chained hashes of the blocks
 * the worker started to hold (in any tier). Storing a block appends one long, a sequential write
 * that stays in cache; a Removed event does not touch the log at all. So applying an event costs one
 * random memory access per block (its node) instead of two (node and a per-worker hash set).
 *
 * <p>The node table is the truth: an entry stands for a block of the worker only while the block's
 * node has the worker's bit in some tier. The log may therefore hold stale entries (blocks removed
 * since) and duplicates (blocks removed and stored again), but every block the worker holds appears
 * in it at least once. When it outgrows {@value #GROWTH} × the worker's live blocks + {@value #SLACK}
 * entries, {@link #compact} keeps each live block exactly once. At least ({@value #GROWTH} − 1) ×
 * live + {@value #SLACK} appends separate two compactions, so compaction costs O(1) amortised per
 * append. Not thread-safe.
 */
final class BlockLog {

    /** The log may grow to this many times the worker's live blocks (plus {@link #SLACK}) before compaction. */
    static final int GROWTH = 4;
    static final int SLACK = 64;
    /** Entries whose home rows a walk reads ahead at once, so their cache misses overlap. */
    private static final int AHEAD = 16;
    private static final int INITIAL = 16;

    private long[] hashes = new long[INITIAL];
    private int size;

    /** Entries, live or not. */
    int size() {
        return size;
    }

    /** The {@code i}-th entry, {@code 0 <= i < size()}. */
    long hash(int i) {
        return hashes[i];
    }

    /** Whether a log with this many entries for a worker holding {@code live} blocks is due for {@link #compact}. */
    boolean needsCompaction(int live) {
        return size > GROWTH * (long) live + SLACK;
    }

    void append(long hash) {
        if (size == hashes.length) {
            hashes = Arrays.copyOf(hashes, size * 2);
        }
        hashes[size++] = hash;
    }

    /** Forgets every entry and gives back the memory. */
    void clear() {
        hashes = new long[INITIAL];
        size = 0;
    }

    /**
     * Keeps exactly one entry per block that worker slot {@code workerSlot} holds in {@code nodes},
     * in log order; returns how many were kept. Changes nothing in {@code nodes}. {@code marks} must
     * be clear and is left clear.
     */
    int compact(NodeTable nodes, int workerSlot, SlotMarks marks) {
        marks.ensureSlots(nodes.slotLimit());
        int kept = 0;
        long touched = 0;
        for (int start = 0; start < size; start += AHEAD) {
            int end = Math.min(size, start + AHEAD);
            for (int i = start; i < end; i++) {
                touched ^= nodes.touch(hashes[i]);
            }
            for (int i = start; i < end; i++) {
                long hash = hashes[i];
                int slot = nodes.find(hash);
                if (slot >= 0 && nodes.tiersOf(slot, workerSlot) != 0 && marks.mark(slot)) {
                    hashes[kept++] = hash;
                }
            }
        }
        marks.clear();
        size = kept;
        if (hashes.length > 4 * Math.max(INITIAL, GROWTH * kept + SLACK)) {
            hashes = Arrays.copyOf(hashes, GROWTH * kept + SLACK);
        }
        nodes.absorb(touched);
        return kept;
    }

    /**
     * Clears the worker's bit in every tier of every block in the log (dropping nodes nobody holds
     * any more) and empties the log: O(1) per entry, the entries' node reads overlapping in groups.
     */
    void dropAll(NodeTable nodes, int workerSlot) {
        long touched = 0;
        for (int start = 0; start < size; start += AHEAD) {
            int end = Math.min(size, start + AHEAD);
            for (int i = start; i < end; i++) {
                touched ^= nodes.touch(hashes[i]);
            }
            for (int i = start; i < end; i++) {
                int slot = nodes.find(hashes[i]);
                if (slot >= 0) {
                    nodes.clearWorker(slot, workerSlot); // a stale or repeated entry clears nothing
                }
            }
        }
        nodes.absorb(touched);
        clear();
    }
}
