package io.squall.kernels.cpu;

import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;

import static io.squall.kernels.cpu.Lanes.F;
import static io.squall.kernels.cpu.Lanes.L;

/**
 * Vectorised loops over float arrays, each with a vector body and a scalar tail; the formulas are
 * those of {@code io.squall.kernels.reference}. Single-threaded; callers split the work.
 */
final class VectorMath {

    static final ValueLayout.OfFloat LE_FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private VectorMath() {
    }

    /** {@code Σ_i a[ao+i]·b[bo+i]} for {@code i < n}. */
    static float dot(float[] a, int ao, float[] b, int bo, int n) {
        FloatVector acc0 = FloatVector.zero(F);
        FloatVector acc1 = FloatVector.zero(F);
        int i = 0;
        for (int bound = n - n % (2 * L); i < bound; i += 2 * L) {
            acc0 = FloatVector.fromArray(F, a, ao + i).fma(FloatVector.fromArray(F, b, bo + i), acc0);
            acc1 = FloatVector.fromArray(F, a, ao + i + L).fma(FloatVector.fromArray(F, b, bo + i + L), acc1);
        }
        for (int bound = F.loopBound(n); i < bound; i += L) {
            acc0 = FloatVector.fromArray(F, a, ao + i).fma(FloatVector.fromArray(F, b, bo + i), acc0);
        }
        float sum = acc0.add(acc1).reduceLanes(VectorOperators.ADD);
        for (; i < n; i++) {
            sum += a[ao + i] * b[bo + i];
        }
        return sum;
    }

    /** {@code y[yo+i] += alpha · x[xo+i]} for {@code i < n}. */
    static void axpy(float[] y, int yo, float alpha, float[] x, int xo, int n) {
        int i = 0;
        for (int bound = F.loopBound(n); i < bound; i += L) {
            FloatVector.fromArray(F, x, xo + i).fma(FloatVector.broadcast(F, alpha), FloatVector.fromArray(F, y, yo + i)).intoArray(y, yo + i);
        }
        for (; i < n; i++) {
            y[yo + i] += alpha * x[xo + i];
        }
    }

    /** {@code y[yo+i] = s · y[yo+i]}. */
    static void scale(float[] y, int yo, float s, int n) {
        int i = 0;
        for (int bound = F.loopBound(n); i < bound; i += L) {
            FloatVector.fromArray(F, y, yo + i).mul(s).intoArray(y, yo + i);
        }
        for (; i < n; i++) {
            y[yo + i] *= s;
        }
    }

    /** Softmax in place over {@code x[off .. off+n)}, {@code n ≥ 1}, subtracting the maximum first. */
    static void softmax(float[] x, int off, int n) {
        int i = 0;
        FloatVector maxV = FloatVector.broadcast(F, Float.NEGATIVE_INFINITY);
        for (int bound = F.loopBound(n); i < bound; i += L) {
            maxV = maxV.max(FloatVector.fromArray(F, x, off + i));
        }
        float max = maxV.reduceLanes(VectorOperators.MAX);
        for (; i < n; i++) {
            max = Math.max(max, x[off + i]);
        }
        FloatVector sumV = FloatVector.zero(F);
        i = 0;
        for (int bound = F.loopBound(n); i < bound; i += L) {
            FloatVector e = FloatVector.fromArray(F, x, off + i).sub(max).lanewise(VectorOperators.EXP);
            e.intoArray(x, off + i);
            sumV = sumV.add(e);
        }
        float sum = sumV.reduceLanes(VectorOperators.ADD);
        for (; i < n; i++) {
            float e = (float) Math.exp(x[off + i] - max);
            x[off + i] = e;
            sum += e;
        }
        scale(x, off, 1f / sum, n);
    }

    /** One row of RMS norm: {@code out = x / sqrt(mean(x²) + eps) · weight}. */
    static void rmsnorm(float[] out, float[] x, float[] weight, int base, int dim, float eps) {
        float ss = dot(x, base, x, base, dim);
        float inv = (float) (1.0 / Math.sqrt(ss / dim + eps));
        int i = 0;
        for (int bound = F.loopBound(dim); i < bound; i += L) {
            FloatVector.fromArray(F, x, base + i).mul(inv).mul(FloatVector.fromArray(F, weight, i)).intoArray(out, base + i);
        }
        for (; i < dim; i++) {
            out[base + i] = x[base + i] * inv * weight[i];
        }
    }

    /** SwiGLU over {@code [from, to)}: {@code gate = gate / (1 + exp(−gate)) · up}. */
    static void siluMul(float[] gate, float[] up, int from, int to) {
        int i = from;
        for (int bound = from + F.loopBound(to - from); i < bound; i += L) {
            FloatVector g = FloatVector.fromArray(F, gate, i);
            FloatVector e = g.neg().lanewise(VectorOperators.EXP);
            g.div(e.add(1f)).mul(FloatVector.fromArray(F, up, i)).intoArray(gate, i);
        }
        for (; i < to; i++) {
            float g = gate[i];
            gate[i] = g / (1f + (float) Math.exp(-g)) * up[i];
        }
    }

    /** {@code acc[from+i] += x[xo+i]} for {@code i < n}. */
    static void add(float[] acc, int from, float[] x, int xo, int n) {
        int i = 0;
        for (int bound = F.loopBound(n); i < bound; i += L) {
            FloatVector.fromArray(F, acc, from + i).add(FloatVector.fromArray(F, x, xo + i)).intoArray(acc, from + i);
        }
        for (; i < n; i++) {
            acc[from + i] += x[xo + i];
        }
    }
}
