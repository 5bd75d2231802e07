package io.squall.kvgrid.index.flat;

import java.util.Arrays;

/**
 * An open-addressing table keyed by {@code long} with linear probing, whose entries are rows of
 * {@code stride} longs in one flat array: field 0 is the key, fields 1.. belong to the subclass. Keeping
 * a key and its hot fields in the same row makes a successful probe touch a single cache line.
 *
 * <p>Key 0 marks an empty row, so a real key 0 lives in the extra row {@code capacity} at the end.
 * Deletion shifts later rows of the probe run back (no tombstones), so lookups stay short under
 * churn; rows therefore move and their slot numbers must not be held across an insertion or a
 * removal. Keys are spread with Fibonacci hashing, so sequential test keys probe as well as random
 * hashes. Not thread-safe.
 */
abstract class LongOpenTable {

    private static final long PHI = 0x9E3779B97F4A7C15L;
    private static final int MIN_CAPACITY = 16;

    /** Rows of {@code stride} longs; row {@code capacity} holds key 0 when {@link #zeroUsed}. */
    long[] table;
    int stride;
    private int capacity;
    private int shift;
    private int size;
    private int limit;
    private boolean zeroUsed;
    private long readAhead;

    LongOpenTable(int stride, int expected) {
        int slots = Math.max(MIN_CAPACITY, Integer.highestOneBit(Math.max(1, (int) (expected / 0.7))) << 1);
        this.stride = stride;
        this.table = new long[(slots + 1) * stride];
        setCapacity(slots);
    }

    /** Number of keys. */
    final int size() {
        return size;
    }

    /** One past the highest slot: iterate {@code 0 .. slotLimit()-1} and test {@link #used}. */
    final int slotLimit() {
        return capacity + 1;
    }

    /** Whether {@code slot} holds a key. */
    final boolean used(int slot) {
        return slot == capacity ? zeroUsed : table[slot * stride] != 0;
    }

    /** The key in {@code slot}, which must be used. */
    final long key(int slot) {
        return table[slot * stride];
    }

    /** The slot of {@code key}, or -1. */
    final int find(long key) {
        if (key == 0) {
            return zeroUsed ? capacity : -1;
        }
        return findFrom(home(key), key);
    }

    /**
     * Reads the keys of {@code key}'s home row and of the row after it and returns their XOR: the
     * loads a probe, an insertion or a removal starts with (a removal shifts the next row back, a
     * collision probes it), issued early so that their cache misses overlap others' (Java has no
     * prefetch instruction). Changes nothing.
     */
    final long touch(long key) {
        int at = home(key) * stride;
        return table[at] ^ table[at + stride]; // row capacity (key 0's) follows the last home row
    }

    /**
     * Folds the XOR of what {@link #touch} returned into a field, so that the JIT cannot drop those
     * reads as unused.
     */
    final void absorb(long touched) {
        readAhead ^= touched;
    }

    /** The slot after {@code slot} on a probe path ({@code slot} below the capacity). */
    final int next(int slot) {
        return (slot + 1) & (capacity - 1);
    }

    /** The slot of {@code key} (not 0), probing from {@code slot}, which must be {@code home(key)}; or -1. */
    final int findFrom(int slot, long key) {
        int mask = capacity - 1;
        for (; ; slot = (slot + 1) & mask) {
            long k = table[slot * stride];
            if (k == key) {
                return slot;
            }
            if (k == 0) {
                return -1;
            }
        }
    }

    /** The slot of {@code key}, inserting it when absent; a new key is returned as {@code -slot - 1} with zeroed fields. */
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
            long k = table[slot * stride];
            if (k == key) {
                return slot;
            }
            if (k == 0) {
                table[slot * stride] = key;
                size++;
                return -slot - 1;
            }
        }
    }

    /** Removes the key in {@code slot}, shifting the rows of its probe run back over the hole. */
    final void removeAt(int slot) {
        size--;
        if (slot == capacity) {
            zeroUsed = false;
            clearRow(slot);
            return;
        }
        int mask = capacity - 1;
        int hole = slot;
        for (int i = (slot + 1) & mask; table[i * stride] != 0; i = (i + 1) & mask) {
            // The row at i may fill the hole only if its home slot is not after the hole on its probe path.
            if (((i - home(table[i * stride])) & mask) >= ((i - hole) & mask)) {
                System.arraycopy(table, i * stride, table, hole * stride, stride);
                hole = i;
            }
        }
        clearRow(hole);
    }

    /** Removes every key, keeping the capacity. */
    final void clear() {
        Arrays.fill(table, 0L);
        zeroUsed = false;
        size = 0;
    }

    /**
     * Widens every row to {@code newStride} longs, copying field {@code f} of the old row to field
     * {@code fieldMap[f]} of the new one (fields absent from the map start at 0).
     */
    final void restride(int newStride, int[] fieldMap) {
        long[] wider = new long[slotLimit() * newStride];
        for (int slot = 0; slot < slotLimit(); slot++) {
            for (int f = 0; f < stride; f++) {
                wider[slot * newStride + fieldMap[f]] = table[slot * stride + f];
            }
        }
        table = wider;
        stride = newStride;
    }

    private void clearRow(int slot) {
        Arrays.fill(table, slot * stride, (slot + 1) * stride, 0L);
    }

    /** Where the probe for {@code key} starts (meaningless for key 0, which has its own row). */
    final int home(long key) {
        return (int) ((key * PHI) >>> shift);
    }

    private void setCapacity(int slots) {
        capacity = slots;
        shift = 64 - Integer.numberOfTrailingZeros(slots);
        limit = (int) (slots * 0.7);
    }

    private void resize() {
        long[] old = table;
        int oldCapacity = capacity;
        int slots = oldCapacity << 1;
        table = new long[(slots + 1) * stride];
        setCapacity(slots);
        int mask = slots - 1;
        for (int from = 0; from < oldCapacity; from++) {
            long key = old[from * stride];
            if (key != 0) {
                int slot = home(key);
                while (table[slot * stride] != 0) {
                    slot = (slot + 1) & mask;
                }
                System.arraycopy(old, from * stride, table, slot * stride, stride);
            }
        }
        System.arraycopy(old, oldCapacity * stride, table, slots * stride, stride); // key 0's row, used or not
    }
}
