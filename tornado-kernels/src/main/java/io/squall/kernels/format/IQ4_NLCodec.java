package io.squall.kernels.format;

import java.lang.foreign.MemorySegment;

/**
 * GGML {@code IQ4_NL}: blocks of 32 elements, 18 bytes, laid out as Q4_0 ({@code f16 d}, {@code qs[16]},
 * see {@link NibbleBlock}), but a nibble indexes a non-linear grid: an element is
 * {@code d · VALUES[nibble]} (ggml's {@code kvalues_iq4nl}). IQ4_XS uses the same grid.
 */
public final class IQ4_NLCodec {

    /** Elements per block. */
    public static final int BLOCK_SIZE = NibbleBlock.SIZE;
    /** Bytes per block. */
    public static final int BLOCK_BYTES = 18;
    /** Byte offset of {@code qs} inside a block. */
    public static final int QS_OFFSET = 2;
    /** The grid, ggml's {@code kvalues_iq4nl}. */
    public static final int[] VALUES = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};
    /** Where the nibbles sit: Q4_0's layout, read without bias. */
    public static final NibbleBlock LAYOUT = new NibbleBlock(BLOCK_BYTES, -1, -1, QS_OFFSET, 0);

    private IQ4_NLCodec() {
    }

    /** The grid value ({@code VALUES[nibble]}) of element {@code j} of the block at byte {@code block}. */
    public static int quant(MemorySegment src, long block, int j) {
        return VALUES[LAYOUT.level(src, block, j)];
    }

    /** ggml's {@code dequantize_row_iq4_nl} over {@code count} elements (whole blocks). */
    public static void dequantize(MemorySegment src, long offset, float[] dst, int dstOffset, int count) {
        for (int block = 0; block < count / BLOCK_SIZE; block++) {
            long base = offset + (long) block * BLOCK_BYTES;
            float d = LittleEndian.half(src, base);
            for (int j = 0; j < BLOCK_SIZE; j++) {
                dst[dstOffset + block * BLOCK_SIZE + j] = d * quant(src, base, j);
            }
        }
    }

    /**
     * A two-step quantizer (not ggml's scale search with an importance matrix, so not bit-identical
     * with llama.cpp's files, but a valid IQ4_NL encoding): see {@link #scale} and {@link #putIndexes}.
     */
    public static void quantize(float[] src, int srcOffset, int count, MemorySegment dst, long offset) {
        for (int block = 0; block < count / BLOCK_SIZE; block++) {
            int first = srcOffset + block * BLOCK_SIZE;
            long base = offset + (long) block * BLOCK_BYTES;
            LittleEndian.putHalf(dst, base, scale(src, first, BLOCK_SIZE));
            putIndexes(src, first, LittleEndian.half(dst, base), dst, base + QS_OFFSET);
        }
    }

    /**
     * The grid step of {@code n} values from {@code src[first]}: first {@code d = max / −127} (the signed
     * value of largest magnitude lands on the grid's end), then the least-squares step
     * {@code Σ x·v / Σ v²} for the grid values {@code v} nearest to {@code x/d}.
     */
    static float scale(float[] src, int first, int n) {
        float amax = 0f;
        float max = 0f;
        for (int j = 0; j < n; j++) {
            if (amax < Math.abs(src[first + j])) {
                amax = Math.abs(src[first + j]);
                max = src[first + j];
            }
        }
        if (amax == 0f) {
            return 0f;
        }
        float d = max / VALUES[0];
        double xv = 0;
        double vv = 0;
        for (int j = 0; j < n; j++) {
            int v = VALUES[nearest(src[first + j] / d)];
            xv += (double) src[first + j] * v;
            vv += (double) v * v;
        }
        return (float) (xv / vv);
    }

    /** Writes the nibbles of the 32 grid values nearest to {@code src[first ..]/d} into the 16 bytes at {@code qs}. */
    static void putIndexes(float[] src, int first, float d, MemorySegment dst, long qs) {
        float id = d != 0f ? 1f / d : 0f;
        for (int j = 0; j < BLOCK_SIZE / 2; j++) {
            int lo = nearest(src[first + j] * id);
            int hi = nearest(src[first + j + BLOCK_SIZE / 2] * id);
            dst.set(java.lang.foreign.ValueLayout.JAVA_BYTE, qs + j, (byte) (lo | hi << 4));
        }
    }

    /** The index of the grid value nearest to {@code v}. */
    static int nearest(float v) {
        int best = 0;
        for (int i = 1; i < VALUES.length; i++) {
            if (Math.abs(VALUES[i] - v) < Math.abs(VALUES[best] - v)) {
                best = i;
            }
        }
        return best;
    }
}
