package io.squall.kernels.cpu;

import io.squall.kernels.GgmlType;
import io.squall.kernels.TestData;
import io.squall.kernels.WeightMatrix;
import io.squall.kernels.format.NibbleBlock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The CPU executor rounds activations as llama.cpp does before a product with Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, IQ4_NL,
 * Q2_K to Q6_K or IQ4_XS weights, and then computes exactly {@code w · x̃}: every batch size (integer dots at 1 row,
 * float tiles above) within float32 summation error of float64 over the rounded activations. Q4_1 and Q5_1 multiply
 * each block's offset by the block sum of llama.cpp's {@code q8_1}, kept in f16, as llama.cpp does.
 */
class QuantizedActivationsTest {

    private final TestData data = new TestData(getClass().getSimpleName());

    @Test
    void q8_0RoundsToNearestEvenWithAnF16Scale() {
        float[] x = new float[64];
        x[0] = 127f;       // the block maximum: d = 1, levels are the values rounded
        x[1] = 2.5f;       // ties go to the even level
        x[2] = 3.5f;
        x[3] = -2.5f;
        x[4] = -126.6f;
        x[32] = 0.3f;      // second block: d = 0.3/127 rounded to f16, the maximum maps to 127
        x[33] = -0.15f;
        QuantizedActivations a = new QuantizedActivations(QuantizedActivations.Scheme.Q8_0);
        a.quantize(x, 64, true);
        assertThat(Arrays.copyOf(a.q, 5)).containsExactly((short) 127, (short) 2, (short) 4, (short) -2, (short) -127);
        assertThat(a.d[0]).isEqualTo(1f);
        assertThat(a.d[1]).isEqualTo(Float.float16ToFloat(Float.floatToFloat16(0.3f / 127f)));
        assertThat(a.q[32]).isEqualTo((short) 127);
        assertThat(a.q[33]).isEqualTo((short) QuantizedActivations.nearest(-0.15f * (127f / 0.3f)));
        assertThat(a.dequantized[33]).isEqualTo(a.d[1] * a.q[33]);
    }

    @Test
    void q8_KScalesBySignedMaximumAndSumsEachSixteenAndThirtyTwo() {
        float[] x = new float[512];
        x[5] = 127f;        // largest magnitude, positive: scale −1, so every level flips sign
        x[6] = -126.5f;     // 126.5 rounds to the even 126
        x[17] = 40f;
        x[300] = -2f;       // second block: the maximum is negative, scale 2/127
        x[301] = 1f;
        QuantizedActivations a = new QuantizedActivations(QuantizedActivations.Scheme.Q8_K);
        a.quantize(x, 512, true);
        assertThat(a.d[0]).isEqualTo(-1f);
        assertThat(a.q[5]).isEqualTo((short) -127);
        assertThat(a.q[6]).isEqualTo((short) 126);
        assertThat(a.q[17]).isEqualTo((short) -40);
        assertThat(a.sums[0]).isEqualTo(-127 + 126);
        assertThat(a.sums[1]).isEqualTo(-40);
        assertThat(a.d[1]).isEqualTo(1f / (-127f / -2f));
        assertThat(a.q[300]).isEqualTo((short) -127);
        assertThat(a.q[301]).isEqualTo((short) QuantizedActivations.nearest(-127f / -2f * 1f));
        assertThat(a.sums[16 + 2]).isEqualTo(a.q[300] + a.q[301]); // 300 = 256 + 16·2 + 12
        // and as ints per 32, for the mins of Q4_K and Q5_K
        assertThat(a.subBlockSums[0]).isEqualTo(-127 + 126 - 40);
        assertThat(a.subBlockSums[8 + 1]).isEqualTo(a.q[300] + a.q[301]);
        for (int s = 0; s < 16; s++) {
            assertThat((float) a.subBlockSums[s]).isEqualTo(a.sums[2 * s] + a.sums[2 * s + 1]);
        }
        if (IntDots.WIDE) {
            // for IQ4_XS's integer dot: the first halves of two sub-blocks, then their second halves
            a.orderNibblePairs(512);
            assertThat(a.nibbleOrder[5]).isEqualTo((short) -127);
            assertThat(a.nibbleOrder[33]).isEqualTo((short) -40); // element 17: second half of the first sub-block
            assertThat(a.nibbleOrder[17]).isEqualTo(a.q[33]);
        }
    }

    @Test
    void anAllZeroBlockHasZeroLevelsAndScale() {
        for (QuantizedActivations.Scheme scheme : new QuantizedActivations.Scheme[] {
                QuantizedActivations.Scheme.Q8_0, QuantizedActivations.Scheme.Q8_K}) {
            QuantizedActivations a = new QuantizedActivations(scheme);
            a.quantize(new float[256], 256, true);
            assertThat(a.d).containsOnly(0f);
            assertThat(a.dequantized).containsOnly(0f);
            assertThat(a.q).containsOnly((short) 0);
            a.quantize(new float[256], 256, false);
            assertThat(a.dequantized).containsOnly(0f);
        }
    }

    @Test
    void theTilesRoundingIsTheIntegerDotsRoundingAsFloats() {
        java.util.SplittableRandom random = new java.util.SplittableRandom(20261128);
        for (QuantizedActivations.Scheme scheme : new QuantizedActivations.Scheme[] {
                QuantizedActivations.Scheme.Q8_0, QuantizedActivations.Scheme.Q8_K}) {
            float[] x = new float[4 * 256];
            for (int i = 0; i < x.length; i++) {
                x[i] = (float) random.nextGaussian() * (i < 256 ? 1f : 1e-3f);
            }
            x[3] = -x[40];           // a tie in magnitude between signs: the first one sets Q8_K's scale
            x[299] = 127f;           // scale 1 for this block: the halves below are ties, rounded to even
            x[300] = 2.5f;
            x[301] = 0.5f;
            x[302] = -1.5f;
            java.util.Arrays.fill(x, 512, 768, 0f); // an all-zero block
            QuantizedActivations levels = new QuantizedActivations(scheme);
            levels.quantize(x, x.length, true);
            QuantizedActivations floats = new QuantizedActivations(scheme);
            floats.quantize(x, x.length, false);
            for (int i = 0; i < x.length; i++) {
                assertThat(Float.floatToRawIntBits(floats.dequantized[i])).as("%s element %d", scheme, i)
                        .isEqualTo(Float.floatToRawIntBits(levels.dequantized[i]));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = GgmlType.class, names = {"Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "IQ4_NL", "Q2_K", "Q3_K", "Q4_K",
            "Q5_K", "Q6_K", "IQ4_XS"})
    void matmulIsFloat64OverTheRoundedActivations(GgmlType type) {
        int cols = type.blockSize() * (type.blockSize() == 256 ? 3 : 7);
        NibbleBlock offsets = switch (type) {
            case Q4_1 -> NibbleBlock.Q4_1;
            case Q5_1 -> NibbleBlock.Q5_1;
            default -> null;
        };
        try (CpuKernels kernels = new CpuKernels(3)) {
            for (WeightMatrix w : new WeightMatrix[] {data.encoded(type, 37, cols), data.randomBlocks(type, 37, cols)}) {
                double[] weights = TestData.dequantized(w);
                for (int batch : new int[] {1, 3, 6, 7, 17, 33}) {
                    float[] x = data.floats(batch * cols, 3);
                    float[] out = new float[batch * w.rows()];
                    kernels.matmul(w, x, out, batch);
                    boolean floats = QuantizedActivations.Scheme.of(type) == QuantizedActivations.Scheme.NONE;
                    double[] rounded = floats ? unrounded(x) : rounded(x, type.blockSize() == 256);
                    float[] offsetSums = offsets == null || floats ? null : q8_1BlockSums(x);
                    for (int b = 0; b < batch; b++) {
                        for (int r = 0; r < w.rows(); r++) {
                            double sum = 0;
                            double magnitude = 0;
                            for (int c = 0; c < cols; c++) {
                                double weight = weights[r * cols + c];
                                if (offsetSums != null) {
                                    // the offset is multiplied by the block's f16 sum below, not by its elements
                                    long block = r * w.rowBytes() + (long) (c / 32) * offsets.blockBytes();
                                    double m = offsets.min(w.data(), block);
                                    weight -= m;
                                    if (c % 32 == 0) {
                                        double p = m * offsetSums[(b * cols + c) / 32];
                                        sum += p;
                                        magnitude += Math.abs(p);
                                    }
                                }
                                double p = weight * rounded[b * cols + c];
                                sum += p;
                                magnitude += Math.abs(p);
                            }
                            assertThat((double) out[b * w.rows() + r])
                                    .as("seed %d, %s batch %d, row %d of activation row %d", data.seed, type, batch, r, b)
                                    .isCloseTo(sum, within(2e-5 * magnitude + 1e-30));
                        }
                    }
                }
            }
        }
    }

    /** The activations as they are, where the machine (or {@code squall.kernels.f32Activations}) keeps floats. */
    private static double[] unrounded(float[] x) {
        double[] out = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            out[i] = x[i];
        }
        return out;
    }

    /** llama.cpp's {@code q8_1} block sums {@code s}: {@code (max|x| / 127)·Σq} in float32, stored as f16. */
    private static float[] q8_1BlockSums(float[] x) {
        float[] sums = new float[x.length / 32];
        for (int block = 0; block < sums.length; block++) {
            float amax = 0f;
            for (int j = 32 * block; j < 32 * block + 32; j++) {
                amax = Math.max(amax, Math.abs(x[j]));
            }
            int levels = 0;
            for (int j = 32 * block; amax != 0f && j < 32 * block + 32; j++) {
                levels += (int) Math.rint(x[j] * (127f / amax));
            }
            sums[block] = Float.float16ToFloat(Float.floatToFloat16(amax / 127f * levels));
        }
        return sums;
    }

    /** An independent statement of llama.cpp's rounding: {@code quantize_row_q8_0} (AVX2) or {@code q8_K}. */
    private static double[] rounded(float[] x, boolean q8_K) {
        int block = q8_K ? 256 : 32;
        double[] out = new double[x.length];
        for (int first = 0; first < x.length; first += block) {
            float amax = 0f;
            float max = 0f;
            for (int j = first; j < first + block; j++) {
                if (Math.abs(x[j]) > amax) {
                    amax = Math.abs(x[j]);
                    max = x[j];
                }
            }
            if (amax == 0f) {
                continue;
            }
            float inverse = q8_K ? -127f / max : 127f / amax;
            float d = q8_K ? 1f / inverse : Float.float16ToFloat(Float.floatToFloat16(amax / 127f));
            for (int j = first; j < first + block; j++) {
                out[j] = (double) d * Math.min(127, (int) Math.rint(x[j] * inverse));
            }
        }
        return out;
    }
}
