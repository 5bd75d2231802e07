package io.squall.kernels.cpu;

import io.squall.kernels.GgmlType;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;

import java.util.Arrays;

import static io.squall.kernels.cpu.Lanes.F;
import static io.squall.kernels.cpu.Lanes.L;

/**
 * Activation rows rounded to 8 bits per block, as llama.cpp rounds them before every product with a
 * quantized weight: {@link Scheme#Q8_0} (blocks of 32, {@code d = max|x| / 127} rounded to f16, the
 * AVX2 {@code quantize_row_q8_0}) for Q8_0, IQ4_NL and (with 256-bit vectors) Q4_0 weights, {@link Scheme#Q8_K}
 * (blocks of 256, {@code d = max / −127} in f32, {@code quantize_row_q8_K_ref}) for Q2_K to Q6_K and IQ4_XS. Both
 * round to nearest, ties to even. Integer dots ({@link IntDots}, one activation row) read {@link #q} and the block
 * scales; the tiled path of larger batches reads {@link #dequantized}, the same rounded values as floats, so every
 * batch size computes the same products.
 *
 * <p>One instance per scheme per {@link MatmulTask}; arrays grow and are reused. Written by the
 * thread that prepares a matmul, then only read by the pool's workers (the pool's run publishes them).
 */
final class QuantizedActivations {

    /** How a format's weights want their activations. */
    enum Scheme {
        /** Kept in float32. */
        NONE(1),
        /** 32-element blocks, f16 scale. */
        Q8_0(32),
        /** 256-element blocks, f32 scale, sums per 16. */
        Q8_K(256);

        /** Elements per block. */
        final int block;

        Scheme(int block) {
            this.block = block;
        }

        /**
         * The scheme {@code type}'s matmul uses, llama.cpp's rounding of the activations for that format ({@code q8_0}
         * for Q8_0, Q4_0, Q5_0 and IQ4_NL; {@code q8_1}, the same levels and scale, for Q4_1 and Q5_1; {@code q8_K}
         * for the K-quants and IQ4_XS), or {@link #NONE}; {@code squall.kernels.f32Activations=true} keeps every
         * format on float activations (the previous numerics, for comparison), as do machines without 256-bit
         * vectors ({@link IntDots#SUPPORTED}). Where a format has no integer dot, or the float one is faster
         * ({@link IntDots#preferred}), the float dot reads the rounded values: the same products to float32
         * rounding.
         */
        static Scheme of(GgmlType type) {
            if (F32_ACTIVATIONS || !IntDots.SUPPORTED) {
                return NONE;
            }
            return switch (type) {
                case Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, IQ4_NL -> Q8_0;
                case Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_XS -> Q8_K;
                default -> NONE;
            };
        }
    }

    /** {@code -Dsquall.kernels.f32Activations=true}: no activation rounding anywhere (slower, for A/B runs). */
    static final boolean F32_ACTIVATIONS = Boolean.getBoolean("squall.kernels.f32Activations");

    /** 1.5 · 2^23: adding it leaves a float's value rounded to an integer (ties to even) in the low mantissa bits. */
    private static final float MAGIC = 12582912f;

    final Scheme scheme;
    /** Rounded levels, {@code −127..127}, row after row. */
    short[] q = new short[0];
    /** Scale of each block (f16-rounded for Q8_0), blocks of all rows in order. */
    float[] d = new float[0];
    /** Q8_K: {@code Σq} per 16 elements. */
    float[] sums = new float[0];
    /** Q8_K: {@code Σq} per 32 elements, as ints: the sub-block sums that Q4_K's and Q5_K's mins multiply. */
    int[] subBlockSums = new int[0];
    /**
     * Q8_K with 512-bit vectors: {@link #q} with the middle quarters of every 64 elements swapped, so a pair of
     * 32-element sub-blocks reads {@code [b0 0..15, b1 0..15, b0 16..31, b1 16..31]}, the order of its packed nibbles
     * (low nibbles of both, then high) in {@link IntDots#iq4_XS}. Made by {@link #orderNibblePairs(int)}.
     */
    short[] nibbleOrder = new short[0];
    /**
     * For {@link InterleavedRows}: per 8 elements {@code k .. k+7}, four pairs of levels, pair {@code i} being
     * level {@code k+i} in the low 16 bits of an int and level {@code k+4+i} in its high 16 bits, each pair repeated
     * over {@link InterleavedRows#ROWS} ints so that it loads as one broadcast vector. Made by {@link #chunkPairs(int)}.
     */
    int[] chunkPairs = new int[0];
    /**
     * For {@link InterleavedNibbles}, per 32 elements: the scale of the block they lie in ({@link #d} itself for Q8_0,
     * a Q8_K block's for each of its eight parts). Made by {@link #chunkPairs(int)}.
     */
    float[] blockScales = new float[0];
    /** For {@link InterleavedNibbles}' offsets, per 32 elements: {@code d·Σq}. Made by {@link #chunkPairs(int)}. */
    float[] scaledBlockSums = new float[0];
    /**
     * For {@link InterleavedNibbles}, per 32 elements: {@code 8·Σq}, what the nibbles' offset of 8 takes off a sum of
     * products over unsigned nibbles. Made by {@link #chunkPairs(int)}.
     */
    int[] nibbleOffsetSums = new int[0];
    /** {@code d·q} per element, the rounded activations as floats. */
    float[] dequantized = new float[0];
    /**
     * Q8_0 rounding before Q4_1 and Q5_1 weights (llama.cpp's {@code q8_1}), per block: {@code s − Σx̃}, where
     * {@code s = f16((max|x| / 127)·Σq)} is the block sum llama.cpp multiplies a weight block's offset {@code m} by,
     * and {@code Σx̃} the exact sum of the rounded block that a product over {@link #dequantized} multiplies it by.
     * Made by {@link #q8_1SumErrors}.
     */
    float[] q8_1SumErrors = new float[0];
    /** Elements quantized by the last {@link #quantize} call. */
    private int length;

    QuantizedActivations(Scheme scheme) {
        this.scheme = scheme;
    }

    /**
     * Rounds {@code n} elements of {@code x} (whole blocks: {@code n} is a multiple of the block) into
     * this instance's arrays, replacing what they held. Only for {@code integerDots} are the levels, scales and sums
     * made: the tiles of larger batches read {@link #dequantized} alone, which a vector loop then makes
     * (at a 500-token Q8_0 prefill the block loops and the nibble copy drew ~10% and ~7% of the samples, on the one
     * thread that prepares a matmul).
     */
    void quantize(float[] x, int n, boolean integerDots) {
        int block = scheme.block;
        if (q.length < n) {
            q = new short[n];
            dequantized = new float[n];
            d = new float[n / block];
            sums = new float[scheme == Scheme.Q8_K ? n / 16 : 0];
            subBlockSums = new int[scheme == Scheme.Q8_K ? n / 32 : 0];
        }
        length = n;
        if (!integerDots) {
            roundedFloats(x, n);
            return;
        }
        for (int b = 0; b < n / block; b++) {
            if (scheme == Scheme.Q8_0) {
                q8_0Block(x, b);
            } else {
                q8_KBlock(x, b);
            }
        }
    }

    /**
     * Fills {@link #nibbleOrder} from the levels of the first {@code n} elements (whole Q8_K blocks) of the last
     * {@link #quantize}: for the 512-bit IQ4_XS dot, the only one that reads it.
     */
    void orderNibblePairs(int n) {
        if (nibbleOrder.length < n) {
            nibbleOrder = new short[q.length];
        }
        for (int pair = 0; pair + 64 <= n; pair += 64) {
            System.arraycopy(q, pair, nibbleOrder, pair, 16);
            System.arraycopy(q, pair + 32, nibbleOrder, pair + 16, 16);
            System.arraycopy(q, pair + 16, nibbleOrder, pair + 32, 16);
            System.arraycopy(q, pair + 48, nibbleOrder, pair + 48, 16);
        }
    }

    /**
     * Fills {@link #q8_1SumErrors} for the {@code n} elements of {@code x} that the last {@link #quantize} (Q8_0)
     * rounded. {@code Σx̃} is exact in float: every partial sum is the f16 scale times an integer below 2^12.
     */
    void q8_1SumErrors(float[] x, int n) {
        if (q8_1SumErrors.length < n / 32) {
            q8_1SumErrors = new float[q.length / 32];
        }
        for (int first = 0; first < n; first += 32) {
            FloatVector most = FloatVector.zero(F);
            FloatVector sum = FloatVector.zero(F);
            for (int j = first; j < first + 32; j += L) {
                most = most.max(FloatVector.fromArray(F, x, j).abs());
                sum = sum.add(FloatVector.fromArray(F, dequantized, j));
            }
            float amax = most.reduceLanes(VectorOperators.MAX);
            float exact = VectorMath.sum(sum);
            float scale = Float.float16ToFloat(Float.floatToFloat16(amax / 127f));
            float levels = scale == 0f ? 0f : exact / scale;
            q8_1SumErrors[first / 32] = Float.float16ToFloat(Float.floatToFloat16(amax / 127f * levels)) - exact;
        }
    }

    /**
     * Fills {@link #chunkPairs}, {@link #blockScales}, {@link #scaledBlockSums} and {@link #nibbleOffsetSums} from the
     * levels of the first
     * {@code n} elements (whole blocks) of the last {@link #quantize}.
     */
    void chunkPairs(int n) {
        int lanes = InterleavedRows.ROWS;
        if (chunkPairs.length < n / 2 * lanes) {
            chunkPairs = new int[q.length / 2 * lanes];
            blockScales = new float[q.length / 32];
            scaledBlockSums = new float[q.length / 32];
            nibbleOffsetSums = new int[q.length / 32];
        }
        for (int k = 0, p = 0; k < n; k += 8) {
            for (int i = 0; i < 4; i++, p += lanes) {
                Arrays.fill(chunkPairs, p, p + lanes, (q[k + i] & 0xFFFF) | q[k + 4 + i] << 16);
            }
        }
        for (int b = 0; b < n / 32; b++) {
            int levels = scheme == Scheme.Q8_K ? subBlockSums[b] : levelSum(32 * b, 32);
            blockScales[b] = d[b * 32 / scheme.block];
            scaledBlockSums[b] = blockScales[b] * levels;
            nibbleOffsetSums[b] = 8 * levels;
        }
    }

    private int levelSum(int first, int n) {
        int sum = 0;
        for (int i = first; i < first + n; i++) {
            sum += q[i];
        }
        return sum;
    }

    /** Elements held since the last {@link #quantize}. */
    int length() {
        return length;
    }

    private void q8_0Block(float[] x, int b) {
        int first = b * 32;
        float amax = 0f;
        for (int j = 0; j < 32; j++) {
            amax = Math.max(amax, Math.abs(x[first + j]));
        }
        float scale = Float.float16ToFloat(Float.floatToFloat16(amax / 127f));
        float inverse = amax != 0f ? 127f / amax : 0f;
        for (int j = 0; j < 32; j++) {
            int level = nearest(x[first + j] * inverse);
            q[first + j] = (short) level;
            dequantized[first + j] = scale * level;
        }
        d[b] = scale;
    }

    private void q8_KBlock(float[] x, int b) {
        int first = b * 256;
        float max = 0f;
        float amax = 0f;
        for (int j = 0; j < 256; j++) {
            float ax = Math.abs(x[first + j]);
            if (ax > amax) {
                amax = ax;
                max = x[first + j];
            }
        }
        float scale = 0f;
        float inverse = 0f;
        if (amax != 0f) {
            inverse = -127f / max;
            scale = 1f / inverse;
        }
        for (int g = 0; g < 16; g++) {
            int sum = 0;
            for (int j = first + 16 * g; j < first + 16 * g + 16; j++) {
                int level = Math.min(127, nearest(inverse * x[j]));
                q[j] = (short) level;
                dequantized[j] = scale * level;
                sum += level;
            }
            sums[b * 16 + g] = sum;
            if ((g & 1) == 0) {
                subBlockSums[b * 8 + g / 2] = sum;
            } else {
                subBlockSums[b * 8 + g / 2] += sum;
            }
        }
        d[b] = scale;
    }

    /**
     * {@link #dequantized} alone, a vector at a time, bit for bit what the block loops give:
     * {@code (v + MAGIC) − MAGIC} is {@link #nearest} as a float, and the scale and its product are the same float
     * operations.
     */
    private void roundedFloats(float[] x, int n) {
        int block = scheme.block;
        FloatVector magic = FloatVector.broadcast(F, MAGIC);
        for (int first = 0; first < n; first += block) {
            FloatVector most = FloatVector.zero(F);
            for (int j = first; j < first + block; j += L) {
                most = most.max(FloatVector.fromArray(F, x, j).abs());
            }
            float amax = most.reduceLanes(VectorOperators.MAX);
            float scale;
            float inverse;
            if (scheme == Scheme.Q8_0) {
                scale = Float.float16ToFloat(Float.floatToFloat16(amax / 127f));
                inverse = amax != 0f ? 127f / amax : 0f;
            } else {
                // Q8_K divides by the signed value of the first element of largest magnitude
                int at = first;
                while (amax != 0f && Math.abs(x[at]) != amax) {
                    at++;
                }
                inverse = amax != 0f ? -127f / x[at] : 0f;
                scale = amax != 0f ? 1f / inverse : 0f;
            }
            FloatVector times = FloatVector.broadcast(F, inverse);
            FloatVector ceiling = FloatVector.broadcast(F, scheme == Scheme.Q8_0 ? Float.MAX_VALUE : 127f);
            for (int j = first; j < first + block; j += L) {
                FloatVector level = FloatVector.fromArray(F, x, j).mul(times).add(magic).sub(magic).min(ceiling);
                level.mul(scale).intoArray(dequantized, j);
            }
        }
    }

    /** ggml's {@code nearest_int}: round to nearest, ties to even, for {@code |v| ≤ 2^22}. */
    static int nearest(float v) {
        return (Float.floatToRawIntBits(v + MAGIC) & 0x007fffff) - 0x00400000;
    }
}
