package io.squall.kernels.cpu;

import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

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

    /* Lane i takes lane i ^ h: adding folds a vector's upper lanes onto its lower ones, h lanes at a time. */
    private static final VectorShuffle<Float> FOLD_16_8 = fold(FloatVector.SPECIES_512, 8);
    private static final VectorShuffle<Float> FOLD_16_4 = fold(FloatVector.SPECIES_512, 4);
    private static final VectorShuffle<Float> FOLD_16_2 = fold(FloatVector.SPECIES_512, 2);
    private static final VectorShuffle<Float> FOLD_16_1 = fold(FloatVector.SPECIES_512, 1);
    private static final VectorShuffle<Float> FOLD_8_4 = fold(FloatVector.SPECIES_256, 4);
    private static final VectorShuffle<Float> FOLD_8_2 = fold(FloatVector.SPECIES_256, 2);
    private static final VectorShuffle<Float> FOLD_8_1 = fold(FloatVector.SPECIES_256, 1);

    private static VectorShuffle<Float> fold(VectorSpecies<Float> species, int h) {
        return VectorShuffle.fromOp(species, i -> i ^ h);
    }

    /**
     * The sum of {@code v}'s lanes, added in one fixed order (halves onto halves) whether the code runs interpreted
     * or compiled. {@code reduceLanes(ADD)} may add floats in any order, and C2's order is not the Java fallback's,
     * so a dot product changed in its last bits once its kernel was compiled; an 8-bit rounding of activations
     * further on could then tip, and the same prompt gave logits up to 0.04 apart from one process to the next.
     *
     * <p>The row kernels ({@code IntDots}, {@code FusedDots}, {@code KQuantDots}, the tiles, attention) call
     * {@code reduceLanes} in place instead: C2 compiles them into units large enough to reach its node cutoff
     * ({@code NodeCountInliningCutoff}), where it refuses to inline a call forced by our directive (unlike the JDK's
     * own {@code @ForceInline}), so this helper ran as a call with a boxed vector on every row and IQ4_XS decode fell
     * to 73–114 tokens/s in about half the processes. With {@link #exp} and the RMS norm's double sum, eight fresh
     * processes on each of three held-out files still gave the same logits bit for bit (BENCHMARKS).
     */
    static float sum(FloatVector v) {
        FloatVector s = v;
        if (s.species() == FloatVector.SPECIES_512) {
            s = s.add(s.rearrange(FOLD_16_8));
            s = s.add(s.rearrange(FOLD_16_4));
            s = s.add(s.rearrange(FOLD_16_2));
            return s.add(s.rearrange(FOLD_16_1)).lane(0);
        }
        if (s.species() == FloatVector.SPECIES_256) {
            s = s.add(s.rearrange(FOLD_8_4));
            s = s.add(s.rearrange(FOLD_8_2));
            return s.add(s.rearrange(FOLD_8_1)).lane(0);
        }
        throw new IllegalArgumentException("no fixed-order lane sum for " + s.species());
    }

    /** ln 2 in two parts: {@code n · LN2_HI} is exact for the {@code n} of {@link #exp}, so the reduction loses nothing. */
    private static final float LN2_HI = 0.693359375f;
    private static final float LN2_LO = -2.12194440e-4f;
    private static final float LOG2_E = 1.44269504f;
    /** 1.5 · 2^23: adding and subtracting it rounds a float to an integer, ties to even. */
    private static final float ROUND = 12582912f;
    /** Below this e^x is under float's smallest normal: the result is 0. */
    private static final float EXP_MIN = -87.33654f;
    /** 127.5 · ln 2: above it 2^n would overflow the exponent. */
    private static final float EXP_MAX = 88.37626f;

    /**
     * {@code e^x} per lane from lanewise arithmetic alone, so it gives the same bits interpreted or compiled:
     * {@code lanewise(EXP)} does not (C2 calls a vector math library that rounds ~1% of lanes differently from the
     * Java fallback). {@code x = n·ln 2 + r} with {@code |r| ≤ ln 2 / 2}, {@code e^r} by its Taylor series to r⁷
     * (truncation under 5e-9), times {@code 2^n} built in the exponent bits. Within 2 ulp of {@code Math.exp} on
     * [−87.3, 88.4]; 0 below, the value at 88.4 above.
     */
    static FloatVector exp(FloatVector x) {
        FloatVector c = x.max(EXP_MIN).min(EXP_MAX);
        FloatVector n = c.mul(LOG2_E).add(ROUND).sub(ROUND);
        FloatVector r = n.fma(n.broadcast(-LN2_HI), c);
        r = n.fma(n.broadcast(-LN2_LO), r);
        FloatVector p = r.fma(r.broadcast(1f / 5040), r.broadcast(1f / 720));
        p = p.fma(r, r.broadcast(1f / 120));
        p = p.fma(r, r.broadcast(1f / 24));
        p = p.fma(r, r.broadcast(1f / 6));
        p = p.fma(r, r.broadcast(0.5f));
        p = p.fma(r, r.broadcast(1f));
        p = p.fma(r, r.broadcast(1f));
        IntVector bits = ((IntVector) n.convert(VectorOperators.F2I, 0)).add(127).lanewise(VectorOperators.LSHL, 23);
        FloatVector scaled = p.mul(bits.reinterpretAsFloats());
        return scaled.blend(0f, x.compare(VectorOperators.LT, EXP_MIN));
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
        float sum = sum(acc0.add(acc1));
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
            FloatVector e = exp(FloatVector.fromArray(F, x, off + i).sub(max));
            e.intoArray(x, off + i);
            sumV = sumV.add(e);
        }
        float sum = sum(sumV);
        for (; i < n; i++) {
            float e = (float) Math.exp(x[off + i] - max);
            x[off + i] = e;
            sum += e;
        }
        scale(x, off, 1f / sum, n);
    }

    /**
     * One row of RMS norm: {@code out = x / sqrt(mean(x²) + eps) · weight}, the mean of squares summed in double and
     * rounded to float before {@code eps} is added, as llama.cpp does. The scale's last bit decides how activations
     * on a rounding tie round to 8 bits next (quantized embeddings under norm weights of 1 put many there): summed in
     * float vectors instead, held-out dim-896 models were 0.03 off llama.cpp's logits on Q4_0, Q5_0 and IQ4_XS,
     * and are now equal.
     */
    static void rmsnorm(float[] out, float[] x, float[] weight, int base, int dim, float eps) {
        double ss = 0;
        for (int i = 0; i < dim; i++) {
            float v = x[base + i];
            ss += v * v;
        }
        float mean = (float) (ss / dim);
        float inv = 1f / (float) Math.sqrt(mean + eps);
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
            FloatVector e = exp(g.neg());
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
