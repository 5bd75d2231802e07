package io.squall.kvgrid.index.flat;

/**
 * One worker's reverse lookup: block hash → bit set of the tiers it holds the block in. Lets the
 * index drop a worker's blocks (Cleared, worker left) in O(1) per block and dump a snapshot without
 * scanning other workers' nodes. Not thread-safe.
 */
final class WorkerBlocks extends LongOpenTable {

    private byte[] tiers;
    private byte[] oldTiers;

    WorkerBlocks() {
        allocate(16);
    }

    /** Records the block in {@code tier}; false when it was already recorded there. */
    boolean add(long hash, int tier) {
        int slot = insert(hash);
        if (slot < 0) {
            slot = -slot - 1;
        }
        byte before = tiers[slot];
        tiers[slot] = (byte) (before | (1 << tier));
        return before != tiers[slot];
    }

    /** Forgets the block in {@code tier}; false when it was not recorded there. */
    boolean remove(long hash, int tier) {
        int slot = find(hash);
        if (slot < 0 || (tiers[slot] & (1 << tier)) == 0) {
            return false;
        }
        tiers[slot] &= (byte) ~(1 << tier);
        if (tiers[slot] == 0) {
            removeAt(slot);
        }
        return true;
    }

    /** The tier bit set (bit {@code t} = {@code Tier.values()[t]}) of the block in {@code slot}. */
    int tiers(int slot) {
        return tiers[slot];
    }

    @Override
    void beginResize(int slots) {
        oldTiers = tiers;
        tiers = new byte[slots];
    }

    @Override
    void copyFromOld(int oldSlot, int newSlot) {
        tiers[newSlot] = oldTiers[oldSlot];
    }

    @Override
    void endResize() {
        oldTiers = null;
    }

    @Override
    void moveData(int from, int to) {
        tiers[to] = tiers[from];
    }

    @Override
    void clearData(int slot) {
        tiers[slot] = 0;
    }
}
