package io.squall.kernels;

import io.squall.kernels.format.GgmlCodec;
import io.squall.kernels.format.LittleEndian;
import io.squall.kernels.format.Q2_KCodec;
import io.squall.kernels.format.Q3_KCodec;
import io.squall.kernels.format.Q6_KCodec;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

/** Random test inputs from a logged seed ({@code -Dsquall.test.seed=N} replays one). */
public final class TestData {

    public final long seed;
    private final SplittableRandom random;

    public TestData(String owner) {
        this.seed = Long.getLong("squall.test.seed", System.nanoTime());
        this.random = new SplittableRandom(seed);
        System.out.println(owner + ": random seed " + seed + " (replay with -Dsquall.test.seed=" + seed + ")");
    }

    public float[] floats(int n, double scale) {
        float[] values = new float[n];
        for (int i = 0; i < n; i++) {
            values[i] = (float) ((random.nextDouble() * 2 - 1) * scale);
        }
        return values;
    }

    public int nextInt(int bound) {
        return random.nextInt(bound);
    }

    /** A matrix encoded from random floats in [-1, 1). */
    public WeightMatrix encoded(GgmlType type, int rows, int cols) {
        return GgmlCodec.encode("w", type, rows, cols, floats(rows * cols, 1));
    }

    /**
     * A quantized matrix of random bytes, every bit pattern allowed, with its f16 scale fields
     * replaced by small finite values: exercises decoders on layouts no quantizer would produce.
     */
    public WeightMatrix randomBlocks(GgmlType type, int rows, int cols) {
        long bytes = rows * type.bytesFor(cols);
        MemorySegment data = Arena.ofAuto().allocate(bytes, 64);
        for (long i = 0; i < bytes; i++) {
            data.set(ValueLayout.JAVA_BYTE, i, (byte) random.nextInt(256));
        }
        long blocks = bytes / type.blockBytes();
        int[] halves = halfOffsets(type);
        for (long b = 0; b < blocks; b++) {
            for (int offset : halves) {
                LittleEndian.putHalf(data, b * type.blockBytes() + offset, smallHalf());
            }
        }
        return new WeightMatrix("random", type, rows, cols, data);
    }

    /** Byte offsets of the f16 scale fields in a block of {@code type}. */
    private static int[] halfOffsets(GgmlType type) {
        return switch (type) {
            case Q8_0, Q4_0, Q5_0, IQ4_NL, IQ4_XS -> new int[] {0};
            case Q4_1, Q5_1, Q4_K, Q5_K -> new int[] {0, 2};
            case Q2_K -> new int[] {Q2_KCodec.D_OFFSET, Q2_KCodec.DMIN_OFFSET};
            case Q3_K -> new int[] {Q3_KCodec.D_OFFSET};
            case Q6_K -> new int[] {Q6_KCodec.D_OFFSET};
            default -> throw new IllegalArgumentException(type.name());
        };
    }

    /** The quantized formats Squall computes with. */
    public static GgmlType[] quantizedTypes() {
        return java.util.Arrays.stream(GgmlType.values())
                .filter(t -> t.isMatmulSupported() && t.blockSize() > 1).toArray(GgmlType[]::new);
    }

    private float smallHalf() {
        return (float) ((random.nextDouble() * 2 - 1) * 0.01);
    }

    /** Row-major dequantized weights in double, through the scalar codec. */
    public static double[] dequantized(WeightMatrix w) {
        float[] row = new float[w.cols()];
        double[] all = new double[w.rows() * w.cols()];
        for (int r = 0; r < w.rows(); r++) {
            GgmlCodec.dequantize(w.type(), w.data(), r * w.rowBytes(), row, 0, w.cols());
            for (int c = 0; c < w.cols(); c++) {
                all[r * w.cols() + c] = row[c];
            }
        }
        return all;
    }
}
