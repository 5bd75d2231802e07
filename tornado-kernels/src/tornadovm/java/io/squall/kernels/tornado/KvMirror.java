package io.squall.kernels.tornado;

import io.squall.kernels.PagedKv;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.ref.WeakReference;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The device's copy of the KV pages that attention reads, kept in one device buffer (the arena) of
 * {@link #capacity()} floats. Each (host pool, page, layer) read gets a slot on first use: its key
 * plane, then its value plane, in the host page's layout. Before each launch, {@link #plan} stages
 * what the device lacks, to be scattered into the arena by the device: a slot's whole planes when
 * it is new or is read through a block table it has not been validated for (a page filled by
 * onboarding or a remote prefill, or reused as a prefix), otherwise only the positions the call adds.
 * This relies on the write discipline stated in {@link io.squall.kernels.Kernels}.
 *
 * <p>When the arena fills, every slot is dropped and the next launch re-stages what it reads. Host
 * pools are held weakly. Not thread-safe.
 */
final class KvMirror {

    private static final ValueLayout.OfFloat LE_FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** A page's planes for one layer on the device, and the block tables they are known valid for. */
    private static final class Slot {
        final int base;
        final List<WeakReference<int[]>> validFor = new ArrayList<>(2);

        Slot(int base) {
            this.base = base;
        }

        boolean validFor(int[] table) {
            for (WeakReference<int[]> ref : validFor) {
                if (ref.get() == table) {
                    return true;
                }
            }
            return false;
        }

        void markValid(int[] table) {
            validFor.removeIf(ref -> ref.get() == null);
            validFor.add(new WeakReference<>(table));
        }
    }

    /** The slots of one host pool, by the layer's key offset and the page. */
    private static final class Pool {
        final WeakReference<MemorySegment> memory;
        final Map<Long, Map<Integer, Slot>> byLayer = new HashMap<>();

        Pool(MemorySegment memory) {
            this.memory = new WeakReference<>(memory);
        }
    }

    /** What one launch needs: each row's entry into {@link #tables}, the slot bases, and the staged floats. */
    static final class Plan {
        int[] tables = new int[64];
        int tableCount;
        /** Per query row: first table entry, last position, block size. */
        int[] rows = new int[48];
        float[] staged = new float[1024];
        int[] index = new int[1024];
        int stagedCount;

        void clear() {
            tableCount = 0;
            stagedCount = 0;
        }

        void stage(int at, float value) {
            if (stagedCount == staged.length) {
                staged = Arrays.copyOf(staged, 2 * staged.length);
                index = Arrays.copyOf(index, 2 * index.length);
            }
            staged[stagedCount] = value;
            index[stagedCount++] = at;
        }

        void table(int base) {
            if (tableCount == tables.length) {
                tables = Arrays.copyOf(tables, 2 * tables.length);
            }
            tables[tableCount++] = base;
        }
    }

    private final List<Pool> pools = new ArrayList<>();
    private int capacity;
    private int used;

    /** @param capacity floats of the device arena */
    KvMirror(int capacity) {
        this.capacity = capacity;
    }

    int capacity() {
        return capacity;
    }

    /** Drops every slot and resizes the arena (the caller rebuilds the device buffer). */
    void reset(int newCapacity) {
        pools.clear();
        used = 0;
        capacity = newCapacity;
    }

    /**
     * Fills {@code plan} for attention over {@code sequences} sequences: sequence {@code s} adds rows
     * at positions {@code startPos[s] .. startPos[s] + rows[s] - 1}.
     *
     * @return false when the arena cannot hold the slots this launch reads; the caller then
     *         {@link #reset}s it, larger if need be, and plans again
     */
    boolean plan(Plan plan, PagedKv[] kvs, int[] rows, int[] startPos, int sequences, int kvDim) {
        plan.clear();
        int totalRows = 0;
        for (int s = 0; s < sequences; s++) {
            totalRows += rows[s];
        }
        if (plan.rows.length < 3 * totalRows) {
            plan.rows = new int[3 * totalRows];
        }
        int row = 0;
        for (int s = 0; s < sequences; s++) {
            PagedKv kv = kvs[s];
            int first = plan.tableCount;
            int end = startPos[s] + rows[s];
            int blocks = (end + kv.blockSize() - 1) / kv.blockSize();
            for (int block = 0; block < blocks; block++) {
                int base = slot(plan, kv, block, kvDim, startPos[s], end);
                if (base < 0) {
                    return false;
                }
                plan.table(base);
            }
            for (int j = 0; j < rows[s]; j++, row++) {
                plan.rows[3 * row] = first;
                plan.rows[3 * row + 1] = startPos[s] + j;
                plan.rows[3 * row + 2] = kv.blockSize();
            }
        }
        return true;
    }

    /** Floats that a slot of {@code kv}'s pages takes: both planes. */
    static long slotFloats(PagedKv kv, int kvDim) {
        return 2L * kv.blockSize() * kvDim;
    }

    private int slot(Plan plan, PagedKv kv, int block, int kvDim, int firstNew, int endNew) {
        int page = kv.blockTable()[block];
        Map<Integer, Slot> slots = pool(kv.pages()).byLayer.computeIfAbsent(kv.keyOffset(), k -> new HashMap<>());
        Slot slot = slots.get(page);
        int plane = kv.blockSize() * kvDim;
        if (slot == null) {
            if (used + 2L * plane > capacity) {
                return -1;
            }
            slot = new Slot(used);
            used += 2 * plane;
            slots.put(page, slot);
        }
        MemorySegment memory = kv.pages();
        long keys = page * kv.pageBytes() + kv.keyOffset();
        long values = page * kv.pageBytes() + kv.valueOffset();
        int[] table = kv.blockTable();
        if (!slot.validFor(table)) {
            for (int i = 0; i < plane; i++) {
                plan.stage(slot.base + i, memory.get(LE_FLOAT, keys + 4L * i));
                plan.stage(slot.base + plane + i, memory.get(LE_FLOAT, values + 4L * i));
            }
            slot.markValid(table);
            return slot.base;
        }
        int from = Math.max(firstNew, block * kv.blockSize());
        int to = Math.min(endNew, (block + 1) * kv.blockSize());
        for (int t = from; t < to; t++) {
            int at = t % kv.blockSize();
            for (int e = 0; e < kvDim; e++) {
                int i = e * kv.blockSize() + at;
                plan.stage(slot.base + i, memory.get(LE_FLOAT, keys + 4L * i));
            }
            for (int e = 0; e < kvDim; e++) {
                int i = at * kvDim + e;
                plan.stage(slot.base + plane + i, memory.get(LE_FLOAT, values + 4L * i));
            }
        }
        return slot.base;
    }

    private Pool pool(MemorySegment memory) {
        for (Iterator<Pool> it = pools.iterator(); it.hasNext(); ) {
            Pool pool = it.next();
            MemorySegment held = pool.memory.get();
            if (held == memory) {
                return pool;
            }
            if (held == null) {
                it.remove(); // its slots stay allocated until the next reset
            }
        }
        Pool pool = new Pool(memory);
        pools.add(pool);
        return pool;
    }
}
