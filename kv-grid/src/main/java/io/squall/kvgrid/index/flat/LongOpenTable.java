package io.squall.kvgrid.index.flat;

/**
 * An open-addressing table of {@code long} keys with linear probing; subclasses keep their values in
 * parallel arrays indexed by slot. Key 0 marks an empty slot, so a real key 0 lives in the extra slot
 * {@code capacity} at the end. Deletion shifts later entries back (no tombstones), so lookups stay
 * short under churn; slots therefore move and must not be held across a removal or an insertion.
 * Keys are spread with Fibonacci hashing, so sequential test keys probe as well as random hashes.
 * Not thread-safe.
 */
abstract class LongOpenTable {

    private static final long PHI = 0x9E3779B97F4A7C15L;
    private static final int MIN_CAPACITY = 16;

    private long[] keys;
    private int capacity;
    private int shift;
    private int size;
    private int limit;
    private boolean zeroUsed;

    /** Sets up an empty table; subclasses call {@link #allocate(int)} from their constructor. */
    LongOpenTable() {}

    /** Allocates the initial key array for about {@code expected} keys; call once, from the subclass constructor. */
    final void allocate(int expected) {
        int slots = Math.max(MIN_CAPACITY, Integer.highestOneBit(Math.max(1, (int) (expected / 0.7))) << 1);
        keys = new long[slots + 1];
        setCapacity(slots);
        beginResize(slots + 1);
        endResize();
    }

    /** Number of keys. */
    final int size() {
        return size;
    }

    /** One past the highest slot index: iterate {@code 0 .. slotLimit()-1} and test {@link #used}. */
    final int slotLimit() {
        return capacity + 1;
    }

    /** Whether {@code slot} holds a key. */
    final boolean used(int slot) {
        return slot == capacity ? zeroUsed : keys[slot] != 0;
    }

    /** The key in {@code slot}, which must be used. */
    final long key(int slot) {
        return keys[slot];
    }

    /** The slot of {@code key}, or -1. */
    final int find(long key) {
        if (key == 0) {
            return zeroUsed ? capacity : -1;
        }
        int mask = capacity - 1;
        for (int slot = home(key); ; slot = (slot + 1) & mask) {
            long k = keys[slot];
            if (k == key) {
                return slot;
            }
            if (k == 0) {
                return -1;
            }
        }
    }

    /**
     * The slot of {@code key}, inserting it when absent; a new key is returned as {@code -slot - 1}
     * with its value slots cleared.
     */
    final int insert(long key) {
        if (size >= limit) {
            resize();
        }
        if (key == 0) {
            if (zeroUsed) {
                return capacity;
            }
            zeroUsed = true;
            size++;
            return -capacity - 1;
        }
        int mask = capacity - 1;
        for (int slot = home(key); ; slot = (slot + 1) & mask) {
            long k = keys[slot];
            if (k == key) {
                return slot;
            }
            if (k == 0) {
                keys[slot] = key;
                size++;
                return -slot - 1;
            }
        }
    }

    /** Removes the key in {@code slot}, shifting the entries of its probe run back over the hole. */
    final void removeAt(int slot) {
        size--;
        if (slot == capacity) {
            zeroUsed = false;
            clearData(slot);
            return;
        }
        int mask = capacity - 1;
        int hole = slot;
        for (int i = (slot + 1) & mask; keys[i] != 0; i = (i + 1) & mask) {
            // The entry at i may fill the hole only if its home slot is not after the hole on its probe path.
            if (((i - home(keys[i])) & mask) >= ((i - hole) & mask)) {
                keys[hole] = keys[i];
                moveData(i, hole);
                hole = i;
            }
        }
        keys[hole] = 0;
        clearData(hole);
    }

    /** Removes every key, keeping the capacity. */
    final void clear() {
        for (int slot = 0; slot <= capacity; slot++) {
            if (used(slot)) {
                keys[slot] = 0;
                clearData(slot);
            }
        }
        zeroUsed = false;
        size = 0;
    }

    /** Allocates value arrays of {@code slots} entries, keeping the current ones for {@link #copyFromOld}. */
    abstract void beginResize(int slots);

    /** Copies the values of {@code oldSlot} in the arrays kept by {@link #beginResize} to {@code newSlot}. */
    abstract void copyFromOld(int oldSlot, int newSlot);

    /** Drops the arrays kept by {@link #beginResize}. */
    abstract void endResize();

    /** Moves the values of {@code from} to {@code to} (deletion's backward shift). */
    abstract void moveData(int from, int to);

    /** Resets the values of a slot that no longer holds a key. */
    abstract void clearData(int slot);

    private int home(long key) {
        return (int) ((key * PHI) >>> shift);
    }

    private void setCapacity(int slots) {
        capacity = slots;
        shift = 64 - Integer.numberOfTrailingZeros(slots);
        limit = (int) (slots * 0.7);
    }

    private void resize() {
        long[] oldKeys = keys;
        int oldCapacity = capacity;
        boolean hadZero = zeroUsed;
        int slots = oldCapacity << 1;
        keys = new long[slots + 1];
        setCapacity(slots);
        beginResize(slots + 1);
        int mask = slots - 1;
        for (int old = 0; old < oldCapacity; old++) {
            long key = oldKeys[old];
            if (key != 0) {
                int slot = home(key);
                while (keys[slot] != 0) {
                    slot = (slot + 1) & mask;
                }
                keys[slot] = key;
                copyFromOld(old, slot);
            }
        }
        if (hadZero) {
            copyFromOld(oldCapacity, slots);
        }
        endResize();
    }
}
