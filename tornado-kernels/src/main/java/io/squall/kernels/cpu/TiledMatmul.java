package io.squall.kernels.cpu;

import io.squall.kernels.format.LittleEndian;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;

import java.lang.foreign.MemorySegment;

import static io.squall.kernels.cpu.Lanes.F;
import static io.squall.kernels.cpu.Lanes.L;

/**
 * Register-tiled products of decoded weight rows (a per-thread float buffer), or of F32 rows read in place
 * ({@link #inPlaceTile}), with a batch of activation rows: {@code out[b·rows + r] = w_r · x_b}.
 *
 * <p>Two shapes. The 4×4 micro-kernel keeps 16 accumulators of partial dot products (columns in the lanes), loads
 * each weight and activation vector once per 4 FMAs, and reduces every accumulator across its lanes at the end. The
 * broadcast tiles of {@link #broadcastTile} put activation rows in the lanes instead ({@link ColumnActivations}):
 * each weight is broadcast and multiplied into two vectors of activation rows, so an accumulator ends holding
 * finished outputs and nothing is reduced. With AVX-512 a tile is eight weight rows (16 accumulators, two activation
 * vectors and a broadcast in 32 registers): from 32 activation rows on it reaches ~225 GFLOP/s on one core against
 * the 4×4 kernel's 150–175 (weights in cache, 2048x768 and 768x2048, batch 64), while at a single vector of rows
 * (16) the 4×4 kernel stays ahead (158 against 150 for a 12-row broadcast tile). With AVX2's 16 registers a tile is
 * six rows (12 accumulators, 15 registers): 83–87 GFLOP/s against the 4×4 kernel's 42–47, which keeps 7 of its 16
 * accumulators on the stack (one core, 48 rows of 768 in cache, 64 activation rows; docs/BENCHMARKS.md).
 */
final class TiledMatmul {

    /** Whether the broadcast tiles run here: with 256- and 512-bit vectors. */
    static final boolean BROADCAST = L == 8 || L == 16;
    /**
     * Weight rows of a broadcast tile: as many as fit the registers at two accumulators a row, beside two activation
     * vectors and a broadcast (AVX2's 16 registers hold six, AVX-512's 32 eight).
     */
    static final int BROADCAST_ROWS = L == 16 ? 8 : 6;
    /**
     * Fewest activation rows for the broadcast tiles: two vectors of them. With AVX2 at one vector (8 rows) the six-row
     * tile lost to the 4×4 tile (the matmuls of a Q4_0 step: 29–36 against 24–28 ms), at 12 and 16 it won.
     */
    static final int BROADCAST_MIN_BATCH = 2 * L;
    /**
     * Whether F32 matrices take the eight-row broadcast tiles with their weights read in place ({@link #inPlaceTile})
     * from one vector of activation rows on: with 512-bit vectors.
     */
    static final boolean IN_PLACE_F32 = BROADCAST_ROWS == 8;

    private TiledMatmul() {
    }

    /**
     * {@link #BROADCAST_ROWS} rows, decoded at {@code w[i·cols]}, times every activation row of {@code x}, two vectors
     * of activation rows at a time (one for the last odd vector). Row {@code i}'s outputs go to
     * {@code out[o + i·x.stride + b]} (padding rows included), by column like the input: written whole, as vectors.
     */
    static void broadcastTile(float[] w, int cols, ColumnActivations x, float[] out, int o) {
        int b = 0;
        for (; b + 2 * L <= x.stride; b += 2 * L) {
            if (BROADCAST_ROWS == 8) {
                kernel8x2(w, cols, x, b, out, o + b);
            } else {
                kernel6x2(w, cols, x, b, out, o + b);
            }
        }
        // what is left is the last panel, one vector wide: the one-vector kernels step through it L floats a column
        if (b < x.stride) {
            if (BROADCAST_ROWS == 8) {
                kernel8x1(w, cols, x, b, out, o + b);
            } else {
                kernel6x1(w, cols, x, b, out, o + b);
            }
        }
    }

    /**
     * Eight F32 rows read in place, row {@code i} at byte {@code off + i·rowBytes}, times every activation row of
     * {@code x}, as {@link #broadcastTile}; row {@code i}'s outputs go to {@code out[o + i·rowSpacing + b]}. With the rows
     * far apart (a stream each, {@code MatmulTask}), the weights' loads spread over the multiply-adds from eight runs of
     * the matrix at once: F32 at batch 16 from memory, one thread, took 546–595 µs for 2048x768 against 1,000–1,070
     * with the tile's rows adjacent, read in place or copied first (docs/BENCHMARKS.md). Decoded rows keep the array
     * kernels: through a heap segment over the buffer, Q4_0 at batch 64 took 2,140–2,153 µs against 1,552–1,777.
     */
    static void inPlaceTile(MemorySegment w, long off, long rowBytes, int cols, ColumnActivations x, float[] out,
                            int o, int rowSpacing) {
        int b = 0;
        for (; b + 2 * L <= x.stride; b += 2 * L) {
            inPlace8x2(w, off, rowBytes, cols, x, b, out, o + b, rowSpacing);
        }
        if (b < x.stride) {
            inPlace8x1(w, off, rowBytes, cols, x, b, out, o + b, rowSpacing);
        }
    }

    private static void inPlace8x2(MemorySegment w, long off, long rowBytes, int cols, ColumnActivations x, int b0,
                                   float[] out, int o, int rowSpacing) {
        FloatVector a00 = FloatVector.zero(F), a01 = a00, a10 = a00, a11 = a00, a20 = a00, a21 = a00;
        FloatVector a30 = a00, a31 = a00, a40 = a00, a41 = a00, a50 = a00, a51 = a00;
        FloatVector a60 = a00, a61 = a00, a70 = a00, a71 = a00;
        float[] xs = x.values;
        long o1 = off + rowBytes, o2 = o1 + rowBytes, o3 = o2 + rowBytes;
        long o4 = o3 + rowBytes, o5 = o4 + rowBytes, o6 = o5 + rowBytes, o7 = o6 + rowBytes;
        for (int c = 0, xo = b0 * cols; c < cols; c++, xo += 2 * L) {
            FloatVector v0 = FloatVector.fromArray(F, xs, xo);
            FloatVector v1 = FloatVector.fromArray(F, xs, xo + L);
            long at = 4L * c;
            FloatVector s = FloatVector.broadcast(F, w.get(LittleEndian.FLOAT, off + at));
            a00 = s.fma(v0, a00);
            a01 = s.fma(v1, a01);
            s = FloatVector.broadcast(F, w.get(LittleEndian.FLOAT, o1 + at));
            a10 = s.fma(v0, a10);
            a11 = s.fma(v1, a11);
            s = FloatVector.broadcast(F, w.get(LittleEndian.FLOAT, o2 + at));
            a20 = s.fma(v0, a20);
            a21 = s.fma(v1, a21);
            s = FloatVector.broadcast(F, w.get(LittleEndian.FLOAT, o3 + at));
            a30 = s.fma(v0, a30);
            a31 = s.fma(v1, a31);
            s = FloatVector.broadcast(F, w.get(LittleEndian.FLOAT, o4 + at));
            a40 = s.fma(v0, a40);
            a41 = s.fma(v1, a41);
            s = FloatVector.broadcast(F, w.get(LittleEndian.FLOAT, o5 + at));
            a50 = s.fma(v0, a50);
            a51 = s.fma(v1, a51);
            s = FloatVector.broadcast(F, w.get(LittleEndian.FLOAT, o6 + at));
            a60 = s.fma(v0, a60);
            a61 = s.fma(v1, a61);
            s = FloatVector.broadcast(F, w.get(LittleEndian.FLOAT, o7 + at));
            a70 = s.fma(v0, a70);
            a71 = s.fma(v1, a71);
        }
        a00.intoArray(out, o);
        a01.intoArray(out, o + L);
        a10.intoArray(out, o + rowSpacing);
        a11.intoArray(out, o + rowSpacing + L);
        a20.intoArray(out, o + 2 * rowSpacing);
        a21.intoArray(out, o + 2 * rowSpacing + L);
        a30.intoArray(out, o + 3 * rowSpacing);
        a31.intoArray(out, o + 3 * rowSpacing + L);
        a40.intoArray(out, o + 4 * rowSpacing);
        a41.intoArray(out, o + 4 * rowSpacing + L);
        a50.intoArray(out, o + 5 * rowSpacing);
        a51.intoArray(out, o + 5 * rowSpacing + L);
        a60.intoArray(out, o + 6 * rowSpacing);
        a61.intoArray(out, o + 6 * rowSpacing + L);
        a70.intoArray(out, o + 7 * rowSpacing);
        a71.intoArray(out, o + 7 * rowSpacing + L);
    }

    private static void inPlace8x1(MemorySegment w, long off, long rowBytes, int cols, ColumnActivations x, int b0,
                                   float[] out, int o, int rowSpacing) {
        FloatVector a0 = FloatVector.zero(F), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
        float[] xs = x.values;
        long o1 = off + rowBytes, o2 = o1 + rowBytes, o3 = o2 + rowBytes;
        long o4 = o3 + rowBytes, o5 = o4 + rowBytes, o6 = o5 + rowBytes, o7 = o6 + rowBytes;
        for (int c = 0, xo = b0 * cols; c < cols; c++, xo += L) {
            FloatVector v = FloatVector.fromArray(F, xs, xo);
            long at = 4L * c;
            a0 = FloatVector.broadcast(F, w.get(LittleEndian.FLOAT, off + at)).fma(v, a0);
            a1 = FloatVector.broadcast(F, w.get(LittleEndian.FLOAT, o1 + at)).fma(v, a1);
            a2 = FloatVector.broadcast(F, w.get(LittleEndian.FLOAT, o2 + at)).fma(v, a2);
            a3 = FloatVector.broadcast(F, w.get(LittleEndian.FLOAT, o3 + at)).fma(v, a3);
            a4 = FloatVector.broadcast(F, w.get(LittleEndian.FLOAT, o4 + at)).fma(v, a4);
            a5 = FloatVector.broadcast(F, w.get(LittleEndian.FLOAT, o5 + at)).fma(v, a5);
            a6 = FloatVector.broadcast(F, w.get(LittleEndian.FLOAT, o6 + at)).fma(v, a6);
            a7 = FloatVector.broadcast(F, w.get(LittleEndian.FLOAT, o7 + at)).fma(v, a7);
        }
        a0.intoArray(out, o);
        a1.intoArray(out, o + rowSpacing);
        a2.intoArray(out, o + 2 * rowSpacing);
        a3.intoArray(out, o + 3 * rowSpacing);
        a4.intoArray(out, o + 4 * rowSpacing);
        a5.intoArray(out, o + 5 * rowSpacing);
        a6.intoArray(out, o + 6 * rowSpacing);
        a7.intoArray(out, o + 7 * rowSpacing);
    }

    private static void kernel8x2(float[] w, int cols, ColumnActivations x, int b0, float[] out, int o) {
        FloatVector a00 = FloatVector.zero(F), a01 = a00, a10 = a00, a11 = a00, a20 = a00, a21 = a00;
        FloatVector a30 = a00, a31 = a00, a40 = a00, a41 = a00, a50 = a00, a51 = a00;
        FloatVector a60 = a00, a61 = a00, a70 = a00, a71 = a00;
        float[] xs = x.values;
        int stride = x.stride;
        for (int c = 0, xo = b0 * cols; c < cols; c++, xo += 2 * L) {
            FloatVector v0 = FloatVector.fromArray(F, xs, xo);
            FloatVector v1 = FloatVector.fromArray(F, xs, xo + L);
            FloatVector s = FloatVector.broadcast(F, w[c]);
            a00 = s.fma(v0, a00);
            a01 = s.fma(v1, a01);
            s = FloatVector.broadcast(F, w[cols + c]);
            a10 = s.fma(v0, a10);
            a11 = s.fma(v1, a11);
            s = FloatVector.broadcast(F, w[2 * cols + c]);
            a20 = s.fma(v0, a20);
            a21 = s.fma(v1, a21);
            s = FloatVector.broadcast(F, w[3 * cols + c]);
            a30 = s.fma(v0, a30);
            a31 = s.fma(v1, a31);
            s = FloatVector.broadcast(F, w[4 * cols + c]);
            a40 = s.fma(v0, a40);
            a41 = s.fma(v1, a41);
            s = FloatVector.broadcast(F, w[5 * cols + c]);
            a50 = s.fma(v0, a50);
            a51 = s.fma(v1, a51);
            s = FloatVector.broadcast(F, w[6 * cols + c]);
            a60 = s.fma(v0, a60);
            a61 = s.fma(v1, a61);
            s = FloatVector.broadcast(F, w[7 * cols + c]);
            a70 = s.fma(v0, a70);
            a71 = s.fma(v1, a71);
        }
        a00.intoArray(out, o);
        a01.intoArray(out, o + L);
        a10.intoArray(out, o + 1 * stride);
        a11.intoArray(out, o + 1 * stride + L);
        a20.intoArray(out, o + 2 * stride);
        a21.intoArray(out, o + 2 * stride + L);
        a30.intoArray(out, o + 3 * stride);
        a31.intoArray(out, o + 3 * stride + L);
        a40.intoArray(out, o + 4 * stride);
        a41.intoArray(out, o + 4 * stride + L);
        a50.intoArray(out, o + 5 * stride);
        a51.intoArray(out, o + 5 * stride + L);
        a60.intoArray(out, o + 6 * stride);
        a61.intoArray(out, o + 6 * stride + L);
        a70.intoArray(out, o + 7 * stride);
        a71.intoArray(out, o + 7 * stride + L);
    }

    private static void kernel8x1(float[] w, int cols, ColumnActivations x, int b0, float[] out, int o) {
        FloatVector a0 = FloatVector.zero(F), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
        float[] xs = x.values;
        int stride = x.stride;
        for (int c = 0, xo = b0 * cols; c < cols; c++, xo += L) {
            FloatVector v = FloatVector.fromArray(F, xs, xo);
            a0 = FloatVector.broadcast(F, w[c]).fma(v, a0);
            a1 = FloatVector.broadcast(F, w[cols + c]).fma(v, a1);
            a2 = FloatVector.broadcast(F, w[2 * cols + c]).fma(v, a2);
            a3 = FloatVector.broadcast(F, w[3 * cols + c]).fma(v, a3);
            a4 = FloatVector.broadcast(F, w[4 * cols + c]).fma(v, a4);
            a5 = FloatVector.broadcast(F, w[5 * cols + c]).fma(v, a5);
            a6 = FloatVector.broadcast(F, w[6 * cols + c]).fma(v, a6);
            a7 = FloatVector.broadcast(F, w[7 * cols + c]).fma(v, a7);
        }
        a0.intoArray(out, o);
        a1.intoArray(out, o + 1 * stride);
        a2.intoArray(out, o + 2 * stride);
        a3.intoArray(out, o + 3 * stride);
        a4.intoArray(out, o + 4 * stride);
        a5.intoArray(out, o + 5 * stride);
        a6.intoArray(out, o + 6 * stride);
        a7.intoArray(out, o + 7 * stride);
    }

    private static void kernel6x2(float[] w, int cols, ColumnActivations x, int b0, float[] out, int o) {
        FloatVector a00 = FloatVector.zero(F), a01 = a00, a10 = a00, a11 = a00, a20 = a00, a21 = a00;
        FloatVector a30 = a00, a31 = a00, a40 = a00, a41 = a00, a50 = a00, a51 = a00;
        float[] xs = x.values;
        int stride = x.stride;
        for (int c = 0, xo = b0 * cols; c < cols; c++, xo += 2 * L) {
            FloatVector v0 = FloatVector.fromArray(F, xs, xo);
            FloatVector v1 = FloatVector.fromArray(F, xs, xo + L);
            FloatVector s = FloatVector.broadcast(F, w[c]);
            a00 = s.fma(v0, a00);
            a01 = s.fma(v1, a01);
            s = FloatVector.broadcast(F, w[cols + c]);
            a10 = s.fma(v0, a10);
            a11 = s.fma(v1, a11);
            s = FloatVector.broadcast(F, w[2 * cols + c]);
            a20 = s.fma(v0, a20);
            a21 = s.fma(v1, a21);
            s = FloatVector.broadcast(F, w[3 * cols + c]);
            a30 = s.fma(v0, a30);
            a31 = s.fma(v1, a31);
            s = FloatVector.broadcast(F, w[4 * cols + c]);
            a40 = s.fma(v0, a40);
            a41 = s.fma(v1, a41);
            s = FloatVector.broadcast(F, w[5 * cols + c]);
            a50 = s.fma(v0, a50);
            a51 = s.fma(v1, a51);
        }
        a00.intoArray(out, o);
        a01.intoArray(out, o + L);
        a10.intoArray(out, o + stride);
        a11.intoArray(out, o + stride + L);
        a20.intoArray(out, o + 2 * stride);
        a21.intoArray(out, o + 2 * stride + L);
        a30.intoArray(out, o + 3 * stride);
        a31.intoArray(out, o + 3 * stride + L);
        a40.intoArray(out, o + 4 * stride);
        a41.intoArray(out, o + 4 * stride + L);
        a50.intoArray(out, o + 5 * stride);
        a51.intoArray(out, o + 5 * stride + L);
    }

    private static void kernel6x1(float[] w, int cols, ColumnActivations x, int b0, float[] out, int o) {
        FloatVector a0 = FloatVector.zero(F), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0;
        float[] xs = x.values;
        int stride = x.stride;
        for (int c = 0, xo = b0 * cols; c < cols; c++, xo += L) {
            FloatVector v = FloatVector.fromArray(F, xs, xo);
            a0 = FloatVector.broadcast(F, w[c]).fma(v, a0);
            a1 = FloatVector.broadcast(F, w[cols + c]).fma(v, a1);
            a2 = FloatVector.broadcast(F, w[2 * cols + c]).fma(v, a2);
            a3 = FloatVector.broadcast(F, w[3 * cols + c]).fma(v, a3);
            a4 = FloatVector.broadcast(F, w[4 * cols + c]).fma(v, a4);
            a5 = FloatVector.broadcast(F, w[5 * cols + c]).fma(v, a5);
        }
        a0.intoArray(out, o);
        a1.intoArray(out, o + stride);
        a2.intoArray(out, o + 2 * stride);
        a3.intoArray(out, o + 3 * stride);
        a4.intoArray(out, o + 4 * stride);
        a5.intoArray(out, o + 5 * stride);
    }

    /**
     * Rows {@code r0 .. r0+3}, decoded at {@code w[0]}, {@code w[cols]}, {@code w[2·cols]},
     * {@code w[3·cols]}, times all {@code batch} activation rows.
     */
    static void fourRows(float[] w, int cols, float[] x, int batch, float[] out, int rows, int r0) {
        int b = 0;
        for (; b + 4 <= batch; b += 4) {
            kernel4x4(w, cols, x, b, out, rows, r0);
        }
        for (; b < batch; b++) {
            kernel4x1(w, cols, x, b, out, rows, r0);
        }
    }

    /** Row {@code r}, decoded at {@code w[0]}, times all {@code batch} activation rows. */
    static void oneRow(float[] w, int cols, float[] x, int batch, float[] out, int rows, int r) {
        for (int b = 0; b < batch; b++) {
            out[b * rows + r] = VectorMath.dot(w, 0, x, b * cols, cols);
        }
    }

    private static void kernel4x4(float[] w, int cols, float[] x, int b0, float[] out, int rows, int r0) {
        FloatVector a00 = FloatVector.zero(F), a01 = a00, a02 = a00, a03 = a00;
        FloatVector a10 = a00, a11 = a00, a12 = a00, a13 = a00;
        FloatVector a20 = a00, a21 = a00, a22 = a00, a23 = a00;
        FloatVector a30 = a00, a31 = a00, a32 = a00, a33 = a00;
        int x0 = b0 * cols;
        int x1 = x0 + cols;
        int x2 = x1 + cols;
        int x3 = x2 + cols;
        int c = 0;
        for (int bound = F.loopBound(cols); c < bound; c += L) {
            FloatVector w0 = FloatVector.fromArray(F, w, c);
            FloatVector w1 = FloatVector.fromArray(F, w, cols + c);
            FloatVector w2 = FloatVector.fromArray(F, w, 2 * cols + c);
            FloatVector w3 = FloatVector.fromArray(F, w, 3 * cols + c);
            FloatVector v = FloatVector.fromArray(F, x, x0 + c);
            a00 = w0.fma(v, a00);
            a10 = w1.fma(v, a10);
            a20 = w2.fma(v, a20);
            a30 = w3.fma(v, a30);
            v = FloatVector.fromArray(F, x, x1 + c);
            a01 = w0.fma(v, a01);
            a11 = w1.fma(v, a11);
            a21 = w2.fma(v, a21);
            a31 = w3.fma(v, a31);
            v = FloatVector.fromArray(F, x, x2 + c);
            a02 = w0.fma(v, a02);
            a12 = w1.fma(v, a12);
            a22 = w2.fma(v, a22);
            a32 = w3.fma(v, a32);
            v = FloatVector.fromArray(F, x, x3 + c);
            a03 = w0.fma(v, a03);
            a13 = w1.fma(v, a13);
            a23 = w2.fma(v, a23);
            a33 = w3.fma(v, a33);
        }
        store(out, rows, r0, b0, a00, a10, a20, a30, w, cols, x, x0, c);
        store(out, rows, r0, b0 + 1, a01, a11, a21, a31, w, cols, x, x1, c);
        store(out, rows, r0, b0 + 2, a02, a12, a22, a32, w, cols, x, x2, c);
        store(out, rows, r0, b0 + 3, a03, a13, a23, a33, w, cols, x, x3, c);
    }

    private static void kernel4x1(float[] w, int cols, float[] x, int b, float[] out, int rows, int r0) {
        FloatVector a0 = FloatVector.zero(F), a1 = a0, a2 = a0, a3 = a0;
        int xb = b * cols;
        int c = 0;
        for (int bound = F.loopBound(cols); c < bound; c += L) {
            FloatVector v = FloatVector.fromArray(F, x, xb + c);
            a0 = FloatVector.fromArray(F, w, c).fma(v, a0);
            a1 = FloatVector.fromArray(F, w, cols + c).fma(v, a1);
            a2 = FloatVector.fromArray(F, w, 2 * cols + c).fma(v, a2);
            a3 = FloatVector.fromArray(F, w, 3 * cols + c).fma(v, a3);
        }
        store(out, rows, r0, b, a0, a1, a2, a3, w, cols, x, xb, c);
    }

    /** Reduces the four row accumulators of token {@code b} and adds the scalar tail from column {@code c}. */
    private static void store(float[] out, int rows, int r0, int b, FloatVector a0, FloatVector a1,
                              FloatVector a2, FloatVector a3, float[] w, int cols, float[] x, int xb, int c) {
        int o = b * rows + r0;
        out[o] = a0.reduceLanes(VectorOperators.ADD) + tail(w, 0, x, xb, c, cols);
        out[o + 1] = a1.reduceLanes(VectorOperators.ADD) + tail(w, cols, x, xb, c, cols);
        out[o + 2] = a2.reduceLanes(VectorOperators.ADD) + tail(w, 2 * cols, x, xb, c, cols);
        out[o + 3] = a3.reduceLanes(VectorOperators.ADD) + tail(w, 3 * cols, x, xb, c, cols);
    }

    private static float tail(float[] w, int wo, float[] x, int xo, int from, int cols) {
        float sum = 0f;
        for (int c = from; c < cols; c++) {
            sum += w[wo + c] * x[xo + c];
        }
        return sum;
    }
}
