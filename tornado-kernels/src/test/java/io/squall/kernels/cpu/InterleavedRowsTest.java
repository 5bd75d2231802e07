package io.squall.kernels.cpu;

import io.squall.kernels.GgmlType;
import io.squall.kernels.TestData;
import io.squall.kernels.WeightMatrix;
import io.squall.kernels.format.LittleEndian;
import io.squall.kernels.format.Q4_0Codec;
import io.squall.kernels.format.Q4_KCodec;
import io.squall.kernels.format.Q6_KCodec;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The interleaved copy's one-row product, to the bit: for Q4_0 llama.cpp's repacked GEMV, per row {@code acc =
 * fma(float(Σ (n − 8)·q_x), d_w·d_x, acc)} block after block; for Q4_K the same per 32-element sub-block with
 * {@code d_w = d·sc}, then {@code acc = fma(8·d·sc − dmin·m, d_x·Σq_x, acc)}, the scales and mins as the codec reads
 * them and the activations rounded to Q8_K; for Q6_K llama.cpp's integer sum per super-block, {@code Σ_s sc_s·Σ (q −
 * 32)·q_x}, times {@code d·d_x}. The activations are rounded as the engine rounds them for each format. Row counts
 * cover whole groups, a padded last group, and group counts that four streams do not divide.
 */
class InterleavedRowsTest {

    private final TestData data = new TestData(getClass().getSimpleName());

    @BeforeEach
    void needsTheLayout() {
        Assumptions.assumeTrue(InterleavedRows.SUPPORTED, "the interleaved layout is read over 8-bit activations, with vectors of 256 bits or more");
    }

    static Stream<Arguments> cases() {
        return Stream.of(GgmlType.Q4_0, GgmlType.Q4_K, GgmlType.Q6_K)
                .flatMap(type -> IntStream.of(3, 8, 37, 64, 104).mapToObj(rows -> Arguments.of(type, rows)));
    }

    @ParameterizedTest(name = "{0}, {1} rows")
    @MethodSource("cases")
    void oneRowProductIsTheScalarArithmeticBitForBit(GgmlType type, int rows) {
        int cols = type == GgmlType.Q4_0 ? 32 * 7 : 3 * 256;
        WeightMatrix w = data.randomBlocks(type, rows, cols);
        QuantizedActivations x = activations(QuantizedActivations.Scheme.of(type), cols);
        float[] out = product(w, x);
        for (int r = 0; r < rows; r++) {
            float expected = switch (type) {
                case Q4_0 -> gemv(w, r, x);
                case Q4_K -> q4_KSum(w, r, x);
                default -> q6_KSum(w, r, x);
            };
            assertThat(Float.floatToRawIntBits(out[r])).as("seed %d, row %d: %s", data.seed, r, out[r])
                    .isEqualTo(Float.floatToRawIntBits(expected));
        }
    }

    static Stream<Arguments> extremes() {
        return Stream.of(GgmlType.Q4_0, GgmlType.Q6_K).flatMap(type -> Stream.of(1f, -1f).map(x -> Arguments.of(type, x)));
    }

    /**
     * The widest sums the 16-bit lanes hold: every level at its top (Q4_0's nibble 15, Q6_K's 63) against activations
     * all at one end of their range (Q8_K rounds a row of equal values to −127), a lane's products summing to ±30,480
     * (16 of 15·127) and ±32,004 (4 of 63·127).
     */
    @ParameterizedTest(name = "{0}, activations {1}")
    @MethodSource("extremes")
    void extremeLevelsAndActivationsStayExact(GgmlType type, float activation) {
        int cols = type == GgmlType.Q4_0 ? 32 * 3 : 256 * 2;
        WeightMatrix w = data.randomBlocks(type, 11, cols);
        // Q4_0's 16 bytes of nibbles; Q6_K's 128 bytes of low bits and 64 of high bits
        int first = type == GgmlType.Q4_0 ? Q4_0Codec.QS_OFFSET : 0;
        int end = type == GgmlType.Q4_0 ? Q4_0Codec.QS_OFFSET + 16 : Q6_KCodec.QH_OFFSET + 64;
        for (long block = 0; block < w.data().byteSize(); block += type.blockBytes()) {
            for (int j = first; j < end; j++) {
                w.data().set(ValueLayout.JAVA_BYTE, block + j, (byte) 0xFF);
            }
        }
        QuantizedActivations x = new QuantizedActivations(QuantizedActivations.Scheme.of(type));
        float[] values = new float[cols];
        Arrays.fill(values, activation);
        x.quantize(values, cols, true);
        x.chunkPairs(cols);
        assertThat(Math.abs(x.q[0])).as("the activations at the end of their range").isGreaterThanOrEqualTo(127);
        float[] out = product(w, x);
        for (int r = 0; r < w.rows(); r++) {
            float expected = type == GgmlType.Q4_0 ? gemv(w, r, x) : q6_KSum(w, r, x);
            assertThat(Float.floatToRawIntBits(out[r])).as("seed %d, row %d: %s", data.seed, r, out[r])
                    .isEqualTo(Float.floatToRawIntBits(expected));
        }
    }

    private QuantizedActivations activations(QuantizedActivations.Scheme scheme, int cols) {
        QuantizedActivations x = new QuantizedActivations(scheme);
        x.quantize(data.floats(cols, 3), cols, true);
        x.chunkPairs(cols);
        return x;
    }

    /** Every chunk of the interleaved copy of {@code w} times {@code x}. */
    private static float[] product(WeightMatrix w, QuantizedActivations x) {
        int rows = w.rows();
        float[] out = new float[rows];
        Arrays.fill(out, Float.NaN);
        try (Arena arena = Arena.ofShared()) {
            InterleavedRows copy = filled(w, arena);
            for (int k = 0; k < copy.chunks(); k++) {
                copy.multiply(x, out, k);
            }
        }
        return out;
    }

    /** The repacked copy of {@code w}, filled in two parts as the executor's parallel chunks fill it. */
    private static InterleavedRows filled(WeightMatrix w, Arena arena) {
        InterleavedRows copy = InterleavedRows.allocate(w, arena);
        int half = w.rows() / 2;
        copy.fill(w, half, w.rows());
        copy.fill(w, 0, half);
        return copy;
    }

    /** {@code ggml_gemv_q4_0_8x8_q8_0}'s arithmetic for one row, scalar. */
    private static float gemv(WeightMatrix w, int row, QuantizedActivations x) {
        float acc = 0f;
        for (int b = 0; b < w.cols() / Q4_0Codec.BLOCK_SIZE; b++) {
            long block = row * w.rowBytes() + (long) b * Q4_0Codec.BLOCK_BYTES;
            int sum = 0;
            for (int j = 0; j < 16; j++) {
                int packed = w.data().get(ValueLayout.JAVA_BYTE, block + Q4_0Codec.QS_OFFSET + j) & 0xFF;
                sum += ((packed & 0x0F) - 8) * x.q[b * 32 + j] + ((packed >>> 4) - 8) * x.q[b * 32 + 16 + j];
            }
            acc = Math.fma((float) sum, LittleEndian.half(w.data(), block) * x.d[b], acc);
        }
        return acc;
    }

    /** The interleaved Q4_K arithmetic for one row, scalar. */
    private static float q4_KSum(WeightMatrix w, int row, QuantizedActivations x) {
        float acc = 0f;
        for (int sb = 0; sb < w.cols() / Q4_KCodec.BLOCK_SIZE; sb++) {
            long block = row * w.rowBytes() + (long) sb * Q4_KCodec.BLOCK_BYTES;
            float d = LittleEndian.half(w.data(), block);
            float dmin = LittleEndian.half(w.data(), block + Q4_KCodec.DMIN_OFFSET);
            for (int s = 0; s < 8; s++) {
                int b = 8 * sb + s;
                int sum = 0;
                int levels = 0;
                for (int j = 0; j < 32; j++) {
                    int q = x.q[32 * b + j];
                    sum += (Q4_KCodec.quant(w.data(), block, 32 * s + j) - 8) * q;
                    levels += q;
                }
                float f = d * Q4_KCodec.scale(w.data(), block, s);
                acc = Math.fma((float) sum, f * x.d[sb], acc);
                acc = Math.fma(8 * f - dmin * Q4_KCodec.min(w.data(), block, s), x.d[sb] * levels, acc);
            }
        }
        return acc;
    }

    /** The Q6_K arithmetic for one row, scalar: exact integers per super-block, one float step each. */
    private static float q6_KSum(WeightMatrix w, int row, QuantizedActivations x) {
        float acc = 0f;
        for (int sb = 0; sb < w.cols() / Q6_KCodec.BLOCK_SIZE; sb++) {
            long block = row * w.rowBytes() + (long) sb * Q6_KCodec.BLOCK_BYTES;
            int sum = 0;
            for (int s = 0; s < 16; s++) {
                int part = 0;
                for (int j = 0; j < 16; j++) {
                    part += Q6_KCodec.quant(w.data(), block, 16 * s + j) * x.q[256 * sb + 16 * s + j];
                }
                sum += Q6_KCodec.scale(w.data(), block, s) * part;
            }
            acc = Math.fma((float) sum, LittleEndian.half(w.data(), block + Q6_KCodec.D_OFFSET) * x.d[sb], acc);
        }
        return acc;
    }
}
