package io.squall.kernels.cpu;

import io.squall.kernels.GgmlType;
import io.squall.kernels.TestData;
import io.squall.kernels.WeightMatrix;
import io.squall.kernels.format.LittleEndian;
import io.squall.kernels.format.Q4_0Codec;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The interleaved Q4_0 copy's one-row product is llama.cpp's repacked GEMV to the bit: per row, {@code acc = fma(float(Σ (n − 8)·q_x), d_w·d_x,
 * acc)} block after block. Row counts cover whole groups, a padded last group, and group counts that four streams
 * do not divide.
 */
class InterleavedQ4_0Test {

    private static final int COLS = 32 * 7;

    private final TestData data = new TestData(getClass().getSimpleName());

    @BeforeEach
    void needsTheLayout() {
        Assumptions.assumeTrue(InterleavedQ4_0.SUPPORTED, "Q4_0 takes 8-bit activations only with 256-bit vectors");
    }

    @ParameterizedTest(name = "{0} rows")
    @ValueSource(ints = {3, 8, 37, 64, 104})
    void oneRowProductIsLlamaCppsRepackedGemvBitForBit(int rows) {
        WeightMatrix w = data.randomBlocks(GgmlType.Q4_0, rows, COLS);
        QuantizedActivations x = new QuantizedActivations(QuantizedActivations.Scheme.Q8_0);
        x.quantize(data.floats(COLS, 3), COLS, true);
        x.chunkPairs(COLS);
        float[] out = new float[rows];
        java.util.Arrays.fill(out, Float.NaN);
        try (Arena arena = Arena.ofShared()) {
            InterleavedQ4_0 copy = filled(w, arena);
            for (int k = 0; k < copy.chunks(); k++) {
                copy.multiply(x, out, k);
            }
        }
        for (int r = 0; r < rows; r++) {
            assertThat(Float.floatToRawIntBits(out[r])).as("seed %d, row %d: %s", data.seed, r, out[r])
                    .isEqualTo(Float.floatToRawIntBits(gemv(w, r, x)));
        }
    }

    /** The repacked copy of {@code w}, filled in two parts as the executor's parallel chunks fill it. */
    private static InterleavedQ4_0 filled(WeightMatrix w, Arena arena) {
        InterleavedQ4_0 copy = InterleavedQ4_0.allocate(w, arena);
        int half = w.rows() / 2;
        copy.fill(w, half, w.rows());
        copy.fill(w, 0, half);
        return copy;
    }

    /** {@code ggml_gemv_q4_0_8x8_q8_0}'s arithmetic for one row, scalar. */
    private static float gemv(WeightMatrix w, int row, QuantizedActivations x) {
        float acc = 0f;
        for (int b = 0; b < COLS / Q4_0Codec.BLOCK_SIZE; b++) {
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
}
