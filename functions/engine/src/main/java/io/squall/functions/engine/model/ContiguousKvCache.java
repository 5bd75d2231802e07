package io.squall.functions.engine.model;

import io.squall.kernels.Kernels;
import io.squall.kernels.PagedKv;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * A {@link KvCache} for one sequence on its own: each layer is a single off-heap page holding the keys
 * {@code [position][kvHeads·headDim]} and then the values, growing by doubling up to the context.
 * The memory is freed by the garbage collector with the cache.
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
        int newCapacity = (int) Math.min(maxPositions, Math.max(positions, Math.max(16L, 2L * capacity)));
        for (int l = 0; l < layers.length; l++) {
            MemorySegment grown = Arena.ofAuto().allocate(2 * planeBytes(newCapacity), 64);
            if (layers[l] != null) {
                MemorySegment.copy(layers[l], 0, grown, 0, planeBytes(length()));
                MemorySegment.copy(layers[l], planeBytes(capacity), grown, planeBytes(newCapacity), planeBytes(length()));
            }
            layers[l] = grown;
        }
        capacity = newCapacity;
    }

    @Override
    void store(int layer, float[] keys, int keysOffset, float[] values, int valuesOffset, int count) {
        MemorySegment page = layers[layer];
        MemorySegment.copy(keys, keysOffset, page, LE_FLOAT, planeBytes(length()), count * kvDim);
        MemorySegment.copy(values, valuesOffset, page, LE_FLOAT, planeBytes(capacity) + planeBytes(length()), count * kvDim);
    }

    @Override
    void attend(Kernels kernels, int layer, float[] q, float[] out, int count, ModelConfig config, float scale) {
        PagedKv kv = new PagedKv(layers[layer], 2 * planeBytes(capacity), capacity, 0, planeBytes(capacity), SINGLE_PAGE);
        kernels.attention(q, kv, out, count, length(), config.heads(), config.kvHeads(), config.headDim(), scale);
    }
}
