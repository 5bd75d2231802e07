package io.squall.functions.engine.model;

import io.squall.kernels.Kernels;

import java.util.Arrays;

/**
 * A {@link KvCache} holding each layer's keys and values in one array {@code [position][kvHeads·headDim]},
 * growing by doubling up to the context.
 */
public final class ContiguousKvCache extends KvCache {

    private final int layers;
    private final int kvDim;
    private final int maxPositions;
    private final float[][] keys;
    private final float[][] values;
    private int capacity;

    ContiguousKvCache(int layers, int kvDim, int maxPositions) {
        this.layers = layers;
        this.kvDim = kvDim;
        this.maxPositions = maxPositions;
        this.keys = new float[layers][0];
        this.values = new float[layers][0];
    }

    @Override
    public int maxPositions() {
        return maxPositions;
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
        for (int l = 0; l < layers; l++) {
            keys[l] = Arrays.copyOf(keys[l], newCapacity * kvDim);
            values[l] = Arrays.copyOf(values[l], newCapacity * kvDim);
        }
        capacity = newCapacity;
    }

    @Override
    void store(int layer, float[] k, int keysOffset, float[] v, int valuesOffset, int count) {
        System.arraycopy(k, keysOffset, keys[layer], length() * kvDim, count * kvDim);
        System.arraycopy(v, valuesOffset, values[layer], length() * kvDim, count * kvDim);
    }

    @Override
    void attend(Kernels kernels, int layer, float[] q, float[] out, int count, ModelConfig config, float scale) {
        kernels.attention(q, keys[layer], values[layer], out, count, length(), config.heads(), config.kvHeads(),
                config.headDim(), scale);
    }
}
