package io.squall.kvgrid.index.flat;

import io.squall.kvgrid.Tier;
import java.util.Arrays;

/**
 * The radix tree's nodes, keyed by chained block hash: per node its parent hash, its local hash (both
 * recorded for snapshots) and, per tier, a bit set of the worker slots holding the block. Bit sets
 * are {@code words} longs per tier, stored inline at {@code slot * stride}. A node disappears when no
 * worker holds it in any tier. Not thread-safe.
 */
final class NodeTable extends LongOpenTable {

    static final int TIERS = Tier.values().length;

    private int words = 1;
    private int stride = TIERS;
    private long[] parents;
    private long[] locals;
    private boolean[] hasParent;
    private long[] masks;
    private long[] oldParents;
    private long[] oldLocals;
    private boolean[] oldHasParent;
    private long[] oldMasks;

    NodeTable(int expectedNodes) {
        allocate(expectedNodes);
    }

    /** Longs per tier bit set: worker slots {@code 0 .. 64*words-1} fit. */
    int words() {
        return words;
    }

    /** Makes room for worker slots {@code 0 .. slots-1}, widening every node's bit sets if needed. */
    void ensureWorkerSlots(int slots) {
        int needed = (slots + 63) >>> 6;
        if (needed <= words) {
            return;
        }
        int newStride = TIERS * needed;
        long[] wider = new long[slotLimit() * newStride];
        for (int slot = 0; slot < slotLimit(); slot++) {
            for (int t = 0; t < TIERS; t++) {
                System.arraycopy(masks, slot * stride + t * words, wider, slot * newStride + t * needed, words);
            }
        }
        masks = wider;
        words = needed;
        stride = newStride;
    }

    /**
     * The slot of the node for {@code hash}, creating it with the given parent and local hash when
     * absent (an existing node keeps what it recorded first).
     */
    int node(long hash, long parent, boolean withParent, long local) {
        int slot = insert(hash);
        if (slot < 0) {
            slot = -slot - 1;
            parents[slot] = parent;
            hasParent[slot] = withParent;
            locals[slot] = local;
        }
        return slot;
    }

    /** Bit {@code workerSlot} of tier {@code tier}'s set at node {@code slot}, word by word. */
    long mask(int slot, int tier, int word) {
        return masks[slot * stride + tier * words + word];
    }

    void set(int slot, int tier, int workerSlot) {
        masks[slot * stride + tier * words + (workerSlot >>> 6)] |= 1L << workerSlot;
    }

    /** Clears one presence bit and drops the node once nobody holds it anywhere. */
    void clear(int slot, int tier, int workerSlot) {
        int base = slot * stride;
        masks[base + tier * words + (workerSlot >>> 6)] &= ~(1L << workerSlot);
        for (int i = base; i < base + stride; i++) {
            if (masks[i] != 0) {
                return;
            }
        }
        removeAt(slot);
    }

    boolean hasParent(int slot) {
        return hasParent[slot];
    }

    long parent(int slot) {
        return parents[slot];
    }

    long local(int slot) {
        return locals[slot];
    }

    @Override
    void beginResize(int slots) {
        oldParents = parents;
        oldLocals = locals;
        oldHasParent = hasParent;
        oldMasks = masks;
        parents = new long[slots];
        locals = new long[slots];
        hasParent = new boolean[slots];
        masks = new long[slots * stride];
    }

    @Override
    void copyFromOld(int oldSlot, int newSlot) {
        parents[newSlot] = oldParents[oldSlot];
        locals[newSlot] = oldLocals[oldSlot];
        hasParent[newSlot] = oldHasParent[oldSlot];
        System.arraycopy(oldMasks, oldSlot * stride, masks, newSlot * stride, stride);
    }

    @Override
    void endResize() {
        oldParents = null;
        oldLocals = null;
        oldHasParent = null;
        oldMasks = null;
    }

    @Override
    void moveData(int from, int to) {
        parents[to] = parents[from];
        locals[to] = locals[from];
        hasParent[to] = hasParent[from];
        System.arraycopy(masks, from * stride, masks, to * stride, stride);
    }

    @Override
    void clearData(int slot) {
        parents[slot] = 0;
        locals[slot] = 0;
        hasParent[slot] = false;
        Arrays.fill(masks, slot * stride, (slot + 1) * stride, 0L);
    }
}
