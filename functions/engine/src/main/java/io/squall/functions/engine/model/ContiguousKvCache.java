package io.squall.functions.engine.model;

import io.squall.kernels.PagedKv;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * A {@link KvCache} for one sequence on its own: each layer is a single off-heap page (see
 * {@link PagedKv}) holding the keys {@code [kvHeads·headDim][capacity]} and then the values
 * {@code [capacity][kvHeads·headDim]}, growing by doubling up to the context. The capacity is a
 * multiple of 16 positions so that a vector of positions never runs past the page. The memory is
 * freed by the garbage collector with the cache.
 */
public final class ContiguousKvCache extends KvCache {

    private static final ValueLayout.OfFloat LE_FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final int[] SINGLE_PAGE = {0};

    private final int kvDim;
    private final int maxPositions;
    private final MemorySegment[] layers;
    private int capacity;

    ContiguousKvCache(int layers, int kvDim, int maxPositions) {
        this.kvDim = kvDim;
        this.maxPositions = maxPositions;
        this.layers = new MemorySegment[layers];
    }

    @Override
    public int maxPositions() {
        return maxPositions;
    }

    private long planeBytes(int positions) {
        return (long) positions * kvDim * Float.BYTES;
    }

    @Override
    void reserve(int positions) {
        if (positions > maxPositions) {
            throw new IllegalArgumentException("sequence of " + positions + " tokens exceeds the context of "
                    + maxPositions + " tokens");
        }
        if (positions <= capacity) {
            return;
        }
        long doubled = Math.min(maxPositions, Math.max(positions, Math.max(16L, 2L * capacity)));
        int newCapacity = (int) ((doubled + 15) / 16 * 16);
        long kept = (long) length() * Float.BYTES;
        for (int l = 0; l < layers.length; l++) {
            MemorySegment grown = Arena.ofAuto().allocate(2 * planeBytes(newCapacity), 64);
            if (layers[l] != null) {
                for (int e = 0; e < kvDim; e++) { // each key element's row of positions
                    MemorySegment.copy(layers[l], e * (long) capacity * Float.BYTES,
                            grown, e * (long) newCapacity * Float.BYTES, kept);
                }
                MemorySegment.copy(layers[l], planeBytes(capacity), grown, planeBytes(newCapacity), planeBytes(length()));
            }
            layers[l] = grown;
        }
        capacity = newCapacity;
    }

    @Override
    void store(int layer, float[] keys, int keysOffset, float[] values, int valuesOffset, int count) {
        MemorySegment page = layers[layer];
        for (int j = 0; j < count; j++) {
            long key = (long) (length() + j) * Float.BYTES;
            int from = keysOffset + j * kvDim;
            for (int e = 0; e < kvDim; e++, key += (long) capacity * Float.BYTES) {
                page.set(LE_FLOAT, key, keys[from + e]);
            }
        }
        MemorySegment.copy(values, valuesOffset, page, LE_FLOAT, planeBytes(capacity) + planeBytes(length()), count * kvDim);
    }

    @Override
    PagedKv layer(int layer) {
        return new PagedKv(layers[layer], 2 * planeBytes(capacity), capacity, 0, planeBytes(capacity), SINGLE_PAGE);
    }
}
