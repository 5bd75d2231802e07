package io.squall.kernels;

import java.util.Objects;

/**
 * Boundary checks shared by {@link Kernels} implementations: one call per operation, before any
 * work, so kernels themselves run check-free. Each method throws {@link IllegalArgumentException}
 * (or {@link NullPointerException}) with a message naming the offending argument.
 */
public final class KernelArguments {

    private KernelArguments() {
    }

    /** Checks a matmul of {@code w} over {@code batch} rows of {@code x} into {@code out}. */
    public static void matmul(WeightMatrix w, float[] x, float[] out, int batch) {
        Objects.requireNonNull(w, "w");
        if (!w.type().isMatmulSupported()) {
            throw new IllegalArgumentException(w.name() + ": no matmul kernel for " + w.type());
        }
        positive(batch, "batch");
        fits(x, (long) batch * w.cols(), "x");
        fits(out, (long) batch * w.rows(), "out");
    }

    /** Checks {@code ws.length} matmuls sharing {@code x}. */
    public static void matmulMany(WeightMatrix[] ws, float[] x, float[][] outs, int batch) {
        Objects.requireNonNull(ws, "ws");
        Objects.requireNonNull(outs, "outs");
        if (ws.length != outs.length) {
            throw new IllegalArgumentException("ws and outs differ in length: " + ws.length + " vs " + outs.length);
        }
        for (int i = 0; i < ws.length; i++) {
            matmul(ws[i], x, outs[i], batch);
            if (ws[i].cols() != ws[0].cols()) {
                throw new IllegalArgumentException(ws[i].name() + ": shares x with " + ws[0].name()
                        + " but has " + ws[i].cols() + " columns, not " + ws[0].cols());
            }
        }
    }

    /** Checks a row lookup. */
    public static void dequantizeRow(WeightMatrix w, int row, float[] out, int offset) {
        Objects.requireNonNull(w, "w");
        Objects.checkIndex(row, w.rows());
        Objects.requireNonNull(out, "out");
        Objects.checkFromIndexSize(offset, w.cols(), out.length);
    }

    /** Checks {@code rows} rows of {@code dim} in each array and a weight of {@code dim}. */
    public static void rows(float[] out, float[] x, float[] weight, int rows, int dim) {
        positive(rows, "rows");
        positive(dim, "dim");
        fits(x, (long) rows * dim, "x");
        fits(out, (long) rows * dim, "out");
        fits(weight, dim, "weight");
    }

    /** Checks a rope call. */
    public static void rope(float[] x, int batch, int[] positions, int heads, int headDim, int rotaryDim,
                            float[] cos, float[] sin) {
        positive(batch, "batch");
        positive(heads, "heads");
        if (rotaryDim <= 0 || rotaryDim % 2 != 0 || rotaryDim > headDim) {
            throw new IllegalArgumentException("rotaryDim must be even and in 1.." + headDim + ", got " + rotaryDim);
        }
        fits(x, (long) batch * heads * headDim, "x");
        Objects.requireNonNull(positions, "positions");
        Objects.requireNonNull(cos, "cos");
        Objects.requireNonNull(sin, "sin");
        if (positions.length < batch) {
            throw new IllegalArgumentException("positions holds " + positions.length + " entries, batch is " + batch);
        }
        for (int b = 0; b < batch; b++) {
            long end = ((long) positions[b] + 1) * (rotaryDim / 2);
            if (positions[b] < 0 || end > cos.length || end > sin.length) {
                throw new IllegalArgumentException("position " + positions[b] + " is outside the cos/sin tables");
            }
        }
    }

    /** The shape and the query and output arrays of an attention call. */
    private static void queries(float[] q, float[] out, int batch, int startPos, int heads, int kvHeads, int headDim) {
        positive(batch, "batch");
        positive(heads, "heads");
        positive(kvHeads, "kvHeads");
        positive(headDim, "headDim");
        if (startPos < 0) {
            throw new IllegalArgumentException("startPos must be >= 0, got " + startPos);
        }
        if (heads % kvHeads != 0) {
            throw new IllegalArgumentException("heads (" + heads + ") must be a multiple of kvHeads (" + kvHeads + ")");
        }
        fits(q, (long) batch * heads * headDim, "q");
        fits(out, (long) batch * heads * headDim, "out");
    }

    /** Checks the arguments of {@link io.squall.kernels.Kernels#attention(float[], PagedKv, float[], int, int, int, int, int, float)}. */
    public static void attention(float[] q, PagedKv kv, float[] out, int batch, int startPos, int heads,
                                      int kvHeads, int headDim) {
        queries(q, out, batch, startPos, heads, kvHeads, headDim);
        pages(kv, (long) startPos + batch, kvHeads, headDim);
    }

    /** Checks the arguments of the several-sequence {@link io.squall.kernels.Kernels#attention}. */
    public static void attention(float[] q, float[] out, PagedKv[] kvs, int[] rows, int[] startPos, int sequences,
                                 int heads, int kvHeads, int headDim) {
        positive(sequences, "sequences");
        Objects.requireNonNull(kvs, "kvs");
        Objects.requireNonNull(rows, "rows");
        Objects.requireNonNull(startPos, "startPos");
        if (kvs.length < sequences || rows.length < sequences || startPos.length < sequences) {
            throw new IllegalArgumentException("kvs, rows and startPos must each hold " + sequences + " entries");
        }
        long total = 0;
        for (int s = 0; s < sequences; s++) {
            queries(q, out, rows[s], startPos[s], heads, kvHeads, headDim);
            pages(Objects.requireNonNull(kvs[s], "kvs[" + s + "]"), (long) startPos[s] + rows[s], kvHeads, headDim);
            total += rows[s];
        }
        fits(q, total * heads * headDim, "q");
        fits(out, total * heads * headDim, "out");
    }

    /** Checks that {@code kv}'s pages hold {@code positions} positions of {@code kvHeads·headDim} keys and values. */
    private static void pages(PagedKv kv, long positions, int kvHeads, int headDim) {
        long pagesNeeded = (positions + kv.blockSize() - 1) / kv.blockSize();
        if (kv.blockTable().length < pagesNeeded) {
            throw new IllegalArgumentException("block table of " + kv.blockTable().length + " pages cannot hold "
                    + positions + " positions of " + kv.blockSize());
        }
        long planeBytes = (long) kv.blockSize() * kvHeads * headDim * Float.BYTES;
        if (Math.max(kv.keyOffset(), kv.valueOffset()) + planeBytes > kv.pageBytes()) {
            throw new IllegalArgumentException("a plane of " + planeBytes + " bytes does not fit a page of "
                    + kv.pageBytes() + " at the given offsets");
        }
        for (int i = 0; i < pagesNeeded; i++) {
            int page = kv.blockTable()[i];
            if (page < 0 || (page + 1L) * kv.pageBytes() > kv.pages().byteSize()) {
                throw new IllegalArgumentException("page " + page + " is outside the pool of "
                        + kv.pages().byteSize() / kv.pageBytes() + " pages");
            }
        }
    }

    /** Checks that {@code arrays} each hold {@code n} elements. */
    public static void elements(int n, float[]... arrays) {
        if (n < 0) {
            throw new IllegalArgumentException("n must be >= 0, got " + n);
        }
        for (float[] array : arrays) {
            fits(array, n, "array");
        }
    }

    /** Checks {@code x[offset .. offset+n)}. */
    public static void range(float[] x, int offset, int n) {
        Objects.requireNonNull(x, "x");
        Objects.checkFromIndexSize(offset, n, x.length);
    }

    private static void positive(int value, String what) {
        if (value <= 0) {
            throw new IllegalArgumentException(what + " must be positive, got " + value);
        }
    }

    private static void fits(float[] array, long needed, String what) {
        Objects.requireNonNull(array, what);
        if (array.length < needed) {
            throw new IllegalArgumentException(what + " holds " + array.length + " floats, needs " + needed);
        }
    }
}
