package io.squall.kernels.cpu;

import io.squall.kernels.PagedKv;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * One attention call's keys copied out of the paged cache into {@code [g][d][t]} order (KV head,
 * dimension, position), so a score tile's lanes run over positions and {@code S = Q·Kᵀ} needs no
 * horizontal reduction. Rows are {@link #stride()} floats, {@code context} rounded up to
 * {@link TiledAttentionTask#BLOCK} plus one vector; the padding is never read unmasked. One chunk per block of
 * {@code BLOCK} positions. Confined to the thread owning the enclosing {@link CpuKernels}.
 */
final class TransposedKeys implements ParallelTask {

    private static final ValueLayout.OfFloat LE_FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private float[] keys = new float[0];
    private PagedKv kv;
    private int context;
    private int kvDim;
    private int stride;

    /** Sets the operands of the next run, grows the buffer, and returns the chunk count. */
    int prepare(PagedKv kv, int context, int kvDim) {
        this.kv = kv;
        this.context = context;
        this.kvDim = kvDim;
        int block = TiledAttentionTask.BLOCK;
        // One extra cache line per row: a power-of-two stride would put every row's position t in
        // the same L1 set, and the transpose writes down a column.
        this.stride = (context + block - 1) / block * block + Lanes.L;
        long needed = (long) kvDim * stride;
        if (needed > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("context " + context + " × kvDim " + kvDim + " is too large to transpose");
        }
        if (keys.length < needed) {
            keys = new float[(int) Math.max(needed, Math.min(Integer.MAX_VALUE - 8, 2L * keys.length))];
        }
        return stride / block;
    }

    /** The transposed keys: dimension {@code j} of KV row ({@code g·headDim + d}) at position {@code t} is {@code [j·stride + t]}. */
    float[] keys() {
        return keys;
    }

    /** Floats per transposed row. */
    int stride() {
        return stride;
    }

    /** Drops the reference to the last call's cache. */
    void clear() {
        kv = null;
    }

    @Override
    public void run(int chunk, int worker) {
        MemorySegment pages = kv.pages();
        long rowBytes = (long) kvDim * Float.BYTES;
        int from = chunk * TiledAttentionTask.BLOCK;
        int to = Math.min(from + TiledAttentionTask.BLOCK, context);
        for (int t = from; t < to; t++) {
            long row = kv.keyRow(t, rowBytes);
            for (int j = 0, dst = t; j < kvDim; j++, dst += stride) {
                keys[dst] = pages.get(LE_FLOAT, row + (long) j * Float.BYTES);
            }
        }
    }
}
