package io.squall.functions.engine.model;

import io.squall.kernels.Kernels;
import io.squall.kernels.PagedKv;

/**
 * The keys and values of one sequence, advanced by a {@link ForwardPass}. Implementations decide
 * where they live: {@link ContiguousKvCache} keeps one growing array per layer; a paged cache keeps
 * them in blocks of a shared pool, reached through a block table.
 *
 * <p>Not thread-safe: a cache belongs to one sequence, advanced by one forward pass at a time.
 */
public abstract sealed class KvCache permits ContiguousKvCache, PagedKvCache {

    private int length;

    /** Positions already computed (the sequence's length so far), in tokens. */
    public final int length() {
        return length;
    }

    /** The most positions this cache can hold, in tokens. */
    public abstract int maxPositions();

    /** Makes room for positions up to {@code positions} (exclusive) in every layer. */
    abstract void reserve(int positions);

    /**
     * Writes the keys and values of {@code count} new positions, starting at {@link #length()}, for
     * {@code layer}: rows of {@code kvDim} floats at {@code keys[keysOffset..]} and {@code values[valuesOffset..]}.
     */
    abstract void store(int layer, float[] keys, int keysOffset, float[] values, int valuesOffset, int count);

    /** Where {@code layer}'s keys and values live, for {@link Kernels#attention}. */
    abstract PagedKv layer(int layer);

    /**
     * Counts {@code positions} more positions as computed without writing their keys and values: a simulated
     * forward pass (the mock engine) keeps the paging and prefix caching of a real one but computes no KV.
     *
     * @throws IllegalArgumentException if the sequence would exceed {@link #maxPositions()}
     */
    public final void advanceUnwritten(int positions) {
        reserve(length + positions);
        advance(positions);
    }

    final void advance(int positions) {
        length += positions;
    }

}
