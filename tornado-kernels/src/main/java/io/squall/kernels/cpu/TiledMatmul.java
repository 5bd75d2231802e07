package io.squall.kernels.cpu;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;

import static io.squall.kernels.cpu.Lanes.F;
import static io.squall.kernels.cpu.Lanes.L;

/**
 * Register-tiled products of decoded weight rows (a per-thread float buffer) with a batch of
 * activation rows: {@code out[b·rows + r] = w_r · x_b}. The 4×4 micro-kernel keeps 16 accumulators
 * in registers and loads each weight and activation vector once per 4 FMAs; it needs 16 + 8 vector
 * registers, which AVX-512's 32 provide.
 */
final class TiledMatmul {

    private TiledMatmul() {
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
