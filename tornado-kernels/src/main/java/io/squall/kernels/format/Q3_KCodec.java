package io.squall.kernels.format;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * GGML {@code Q3_K}: super-blocks of 256 elements, 110 bytes: {@code uint8 hmask[32]} (third bits),
 * {@code uint8 qs[64]} (low two bits, laid out as {@link Q2_KCodec#low2}), {@code uint8 scales[12]}
 * (sixteen 6-bit scales), {@code f16 d}. Element {@code i} of sub-block {@code s = i/16} is
 * {@code d·(scale[s] − 32)·q} with {@code q = low2 − (hmask[i mod 32] bit i/32 ? 0 : 4)}, in −4..3
 * (ggml's {@code dequantize_row_q3_K}).
 */
public final class Q3_KCodec {

    /** Elements per super-block. */
    public static final int BLOCK_SIZE = 256;
    /** Bytes per super-block. */
    public static final int BLOCK_BYTES = 110;
    /** Byte offset of {@code qs}. */
    public static final int QS_OFFSET = 32;
    /** Byte offset of the packed scales. */
    public static final int SCALES_OFFSET = 96;
    /** Byte offset of {@code d}. */
    public static final int D_OFFSET = 108;

    private Q3_KCodec() {
    }

    /** The signed level (−4..3) of element {@code i} of the super-block at byte {@code block}. */
    public static int quant(MemorySegment src, long block, int i) {
        int high = (LittleEndian.ubyte(src, block + (i & 31)) >>> (i >>> 5)) & 1;
        return Q2_KCodec.low2(src, block + QS_OFFSET, i) - (high == 0 ? 4 : 0);
    }

    /**
     * The signed scale ({@code − 32}, in −32..31) of sub-block {@code s} (0..15): the low four bits are
     * the low (s &lt; 8) or high nibble of byte {@code s mod 8}, the high two bits sit at bit
     * {@code 2·(s/4)} of byte {@code 8 + s mod 4}.
     */
    public static int scale(MemorySegment src, long block, int s) {
        long q = block + SCALES_OFFSET;
        // no branch on s: a byte index that differs between branches let C2's loop predication hoist one
        // branch's bounds check over the whole loop, fail at the matrix's last block and recompile, every call
        int low = (LittleEndian.ubyte(src, q + (s & 7)) >>> 4 * (s >>> 3)) & 0x0F;
        int high = (LittleEndian.ubyte(src, q + 8 + (s & 3)) >>> (2 * (s >>> 2))) & 3;
        return (low | high << 4) - 32;
    }

    /** ggml's {@code dequantize_row_q3_K} over {@code count} elements (whole super-blocks). */
    public static void dequantize(MemorySegment src, long offset, float[] dst, int dstOffset, int count) {
        for (int block = 0; block < count / BLOCK_SIZE; block++) {
            long base = offset + (long) block * BLOCK_BYTES;
            float d = LittleEndian.half(src, base + D_OFFSET);
            for (int s = 0; s < 16; s++) {
                float dl = d * scale(src, base, s);
                for (int l = 0; l < 16; l++) {
                    dst[dstOffset + block * BLOCK_SIZE + 16 * s + l] = dl * quant(src, base, 16 * s + l);
                }
            }
        }
    }

    /**
     * A single-pass quantizer (not ggml's {@code make_q3_quants} search, so not bit-identical with
     * llama.cpp's files, but a valid Q3_K encoding): per sub-block {@code step = max / −4} where
     * {@code max} is the signed value of largest magnitude; steps coded as 6-bit multiples of
     * {@code d = (step of largest magnitude) / −32}; levels {@code clamp(round(x/step), −4, 3)}.
     */
    public static void quantize(float[] src, int srcOffset, int count, MemorySegment dst, long offset) {
        float[] steps = new float[16];
        int[] levels = new int[BLOCK_SIZE];
        for (int block = 0; block < count / BLOCK_SIZE; block++) {
            int first = srcOffset + block * BLOCK_SIZE;
            long base = offset + (long) block * BLOCK_BYTES;
            float maxStep = 0f;
            for (int s = 0; s < 16; s++) {
                float max = 0f;
                for (int l = 0; l < 16; l++) {
                    float v = src[first + 16 * s + l];
                    max = Math.abs(v) > Math.abs(max) ? v : max;
                }
                steps[s] = max / -4f;
                maxStep = Math.abs(steps[s]) > Math.abs(maxStep) ? steps[s] : maxStep;
            }
            LittleEndian.putHalf(dst, base + D_OFFSET, maxStep / -32f);
            float d = LittleEndian.half(dst, base + D_OFFSET);
            byte[] packed = new byte[12];
            byte[] hmask = new byte[32];
            for (int s = 0; s < 16; s++) {
                int ls = d == 0f ? 0 : Math.clamp(Math.round(steps[s] / d), -32, 31);
                int sc = ls + 32;
                packed[s & 7] |= (byte) ((sc & 0x0F) << (s < 8 ? 0 : 4));
                packed[8 + (s & 3)] |= (byte) ((sc >>> 4) << (2 * (s >>> 2)));
                float step = d * ls;
                for (int l = 0; l < 16; l++) {
                    int i = 16 * s + l;
                    int q = step == 0f ? 0 : Math.clamp(Math.round(src[first + i] / step), -4, 3);
                    levels[i] = q + 4;
                    hmask[i & 31] |= (byte) ((levels[i] >>> 2) << (i >>> 5));
                }
            }
            MemorySegment.copy(hmask, 0, dst, ValueLayout.JAVA_BYTE, base, 32);
            Q2_KCodec.putLow2(levels, dst, base + QS_OFFSET);
            MemorySegment.copy(packed, 0, dst, ValueLayout.JAVA_BYTE, base + SCALES_OFFSET, 12);
        }
    }
}
