package io.squall.kvgrid.index.flat;

/**
 * A {@link LongOpenTable} of block hash → bit set of tiers, the reverse set the index used before
 * {@link BlockLog}; kept as the table's test subject.
 */
final class WorkerBlocks extends LongOpenTable {

    private static final int TIERS_FIELD = 1;

    WorkerBlocks() {
        super(2, 16);
    }

    /** Records the block in {@code tier}; false when it was already recorded there. */
    boolean add(long hash, int tier) {
        int slot = insert(hash);
        if (slot < 0) {
            slot = -slot - 1;
        }
        int at = slot * stride + TIERS_FIELD;
        long before = table[at];
        table[at] = before | (1L << tier);
        return before != table[at];
    }

    /** Forgets the block in {@code tier}; false when it was not recorded there. */
    boolean remove(long hash, int tier) {
        int slot = find(hash);
        if (slot < 0) {
            return false;
        }
        int at = slot * stride + TIERS_FIELD;
        if ((table[at] & (1L << tier)) == 0) {
            return false;
        }
        table[at] &= ~(1L << tier);
        if (table[at] == 0) {
            removeAt(slot);
        }
        return true;
    }

    /** The tier bit set (bit {@code t} = {@code Tier.values()[t]}) of the block in {@code slot}. */
    int tiers(int slot) {
        return (int) table[slot * stride + TIERS_FIELD];
    }
}
