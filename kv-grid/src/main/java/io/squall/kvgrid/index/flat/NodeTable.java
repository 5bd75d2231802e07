package io.squall.kvgrid.index.flat;

import io.squall.kvgrid.Tier;

/**
 * The radix tree's nodes, keyed by chained block hash. A row is {@code [key, presence…, parent,
 * local, hasParent]}: presence is, per tier, a bit set of the worker slots holding the block, {@code
 * words} longs each; parent and local hash are kept for snapshots. With up to 64 workers a row is 8
 * longs and its hot part (key and the four tier masks, 40 bytes) sits in one cache line, so a lookup
 * costs one memory access per prompt block. A node disappears when no worker holds it in any tier.
 * Not thread-safe.
 */
final class NodeTable extends LongOpenTable {

    static final int TIERS = Tier.values().length;

    private int words = 1;

    NodeTable(int expectedNodes) {
        super(stride(1), expectedNodes);
    }

    private static int stride(int words) {
        return 1 + TIERS * words + 3;
    }

    /** Longs per tier bit set: worker slots {@code 0 .. 64*words-1} fit. */
    int words() {
        return words;
    }

    /** Makes room for worker slots {@code 0 .. slots-1}, widening every row if needed. */
    void ensureWorkerSlots(int slots) {
        int needed = (slots + 63) >>> 6;
        if (needed <= words) {
            return;
        }
        int[] fieldMap = new int[stride];
        fieldMap[0] = 0;
        for (int t = 0; t < TIERS; t++) {
            for (int w = 0; w < words; w++) {
                fieldMap[1 + t * words + w] = 1 + t * needed + w;
            }
        }
        for (int f = 0; f < 3; f++) {
            fieldMap[1 + TIERS * words + f] = 1 + TIERS * needed + f;
        }
        restride(stride(needed), fieldMap);
        words = needed;
    }

    /**
     * The slot of the node for {@code hash}, creating it with the given parent and local hash when
     * absent (an existing node keeps what it recorded first).
     */
    int node(long hash, long parent, boolean withParent, long local) {
        int slot = insert(hash);
        if (slot < 0) {
            slot = -slot - 1;
            int cold = slot * stride + 1 + TIERS * words;
            table[cold] = parent;
            table[cold + 1] = local;
            table[cold + 2] = withParent ? 1 : 0;
        }
        return slot;
    }

    /** Word {@code word} of tier {@code tier}'s worker bit set at node {@code slot}. */
    long mask(int slot, int tier, int word) {
        return table[slot * stride + 1 + tier * words + word];
    }

    void set(int slot, int tier, int workerSlot) {
        table[slot * stride + 1 + tier * words + (workerSlot >>> 6)] |= 1L << workerSlot;
    }

    /** The tiers in which worker slot {@code workerSlot} holds the block at node {@code slot}: bit {@code t} for tier {@code t}. */
    int tiersOf(int slot, int workerSlot) {
        int at = slot * stride + 1 + (workerSlot >>> 6);
        int tiers = 0;
        for (int t = 0; t < TIERS; t++) {
            tiers |= (int) ((table[at + t * words] >>> workerSlot) & 1) << t;
        }
        return tiers;
    }

    /** Clears the worker's bit in every tier and drops the node once nobody holds it anywhere. */
    void clearWorker(int slot, int workerSlot) {
        int at = slot * stride + 1 + (workerSlot >>> 6);
        for (int t = 0; t < TIERS; t++) {
            table[at + t * words] &= ~(1L << workerSlot);
        }
        dropIfEmpty(slot);
    }

    /** Clears one presence bit and drops the node once nobody holds it anywhere. */
    void clear(int slot, int tier, int workerSlot) {
        int presence = slot * stride + 1;
        table[presence + tier * words + (workerSlot >>> 6)] &= ~(1L << workerSlot);
        dropIfEmpty(slot);
    }

    private void dropIfEmpty(int slot) {
        int presence = slot * stride + 1;
        for (int i = presence; i < presence + TIERS * words; i++) {
            if (table[i] != 0) {
                return;
            }
        }
        removeAt(slot);
    }

    boolean hasParent(int slot) {
        return table[slot * stride + 1 + TIERS * words + 2] != 0;
    }

    long parent(int slot) {
        return table[slot * stride + 1 + TIERS * words];
    }

    long local(int slot) {
        return table[slot * stride + 1 + TIERS * words + 1];
    }
}
