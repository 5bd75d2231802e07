package io.squall.functions.engine.model;

/**
 * The keys and values of one sequence, contiguous per layer: layer {@code l} holds
 * {@code [position][kvHeads·headDim]} floats in {@code keys[l]} and {@code values[l]}. Capacity grows
 * by doubling up to the model's context.
 *
 * <p>Not thread-safe: a cache belongs to one sequence, advanced by one forward pass at a time.
 */
public final class KvCache {

    private final int layers;
    private final int kvDim;
    private final int maxPositions;
    private float[][] keys;
    private float[][] values;
    private int capacity;
    private int length;

    KvCache(int layers, int kvDim, int maxPositions) {
        this.layers = layers;
        this.kvDim = kvDim;
        this.maxPositions = maxPositions;
        this.keys = new float[layers][0];
        this.values = new float[layers][0];
    }

    /** Positions already computed (the sequence's length so far), in tokens. */
    public int length() {
        return length;
    }

    /** The most positions this cache can hold, in tokens. */
    public int maxPositions() {
        return maxPositions;
    }

    /** Forgets positions from {@code newLength} on, e.g. to re-run the end of a sequence. */
    public void truncate(int newLength) {
        if (newLength < 0 || newLength > length) {
            throw new IllegalArgumentException("cannot truncate a cache of " + length + " positions to " + newLength);
        }
        length = newLength;
    }

    float[] keys(int layer) {
        return keys[layer];
    }

    float[] values(int layer) {
        return values[layer];
    }

    /** Makes room for {@code positions} positions in every layer. */
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
            keys[l] = java.util.Arrays.copyOf(keys[l], newCapacity * kvDim);
            values[l] = java.util.Arrays.copyOf(values[l], newCapacity * kvDim);
        }
        capacity = newCapacity;
    }

    void advance(int positions) {
        length += positions;
    }
}
