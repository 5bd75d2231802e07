package io.squall.kernels.format;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * GGML {@code Q2_K}: super-blocks of 256 elements, 84 bytes: {@code uint8 scales[16]} (low nibble the
 * scale, high nibble the min of a 16-element sub-block), {@code uint8 qs[64]} (2-bit levels),
 * {@code f16 d}, {@code f16 dmin}. Element {@code i} of sub-block {@code s = i/16} is
 * {@code d·(scales[s] & 15)·q − dmin·(scales[s] >> 4)}, {@code q = (qs[32n + l] >> 2k) & 3} with
 * {@code n = i/128}, {@code k = (i mod 128)/32}, {@code l = i mod 32} (ggml's {@code dequantize_row_q2_K});
 * Q3_K stores its low two bits the same way.
 */
public final class Q2_KCodec {

    /** Elements per super-block. */
    public static final int BLOCK_SIZE = 256;
    /** Bytes per super-block. */
    public static final int BLOCK_BYTES = 84;
    /** Byte offset of {@code qs}. */
    public static final int QS_OFFSET = 16;
    /** Byte offset of {@code d}. */
    public static final int D_OFFSET = 80;
    /** Byte offset of {@code dmin}. */
    public static final int DMIN_OFFSET = 82;

    private Q2_KCodec() {
    }

    /** The 2-bit level of element {@code i} (0..255) in the 64 bytes at {@code qs}. */
    public static int low2(MemorySegment src, long qs, int i) {
        return (LittleEndian.ubyte(src, qs + 32 * (i >>> 7) + (i & 31)) >>> (2 * ((i >>> 5) & 3))) & 3;
    }

    /** The level (0..3) of element {@code i} of the super-block at byte {@code block}. */
    public static int quant(MemorySegment src, long block, int i) {
        return low2(src, block + QS_OFFSET, i);
    }

    /** The 4-bit scale of sub-block {@code s} (0..15). */
    public static int scale(MemorySegment src, long block, int s) {
        return LittleEndian.ubyte(src, block + s) & 0x0F;
    }

    /** The 4-bit min of sub-block {@code s} (0..15). */
    public static int min(MemorySegment src, long block, int s) {
        return LittleEndian.ubyte(src, block + s) >>> 4;
    }

    /** ggml's {@code dequantize_row_q2_K} over {@code count} elements (whole super-blocks). */
    public static void dequantize(MemorySegment src, long offset, float[] dst, int dstOffset, int count) {
        for (int block = 0; block < count / BLOCK_SIZE; block++) {
            long base = offset + (long) block * BLOCK_BYTES;
            float d = LittleEndian.half(src, base + D_OFFSET);
            float dmin = LittleEndian.half(src, base + DMIN_OFFSET);
            for (int s = 0; s < 16; s++) {
                float dl = d * scale(src, base, s);
                float ml = dmin * min(src, base, s);
                for (int l = 0; l < 16; l++) {
                    dst[dstOffset + block * BLOCK_SIZE + 16 * s + l] = dl * quant(src, base, 16 * s + l) - ml;
                }
            }
        }
    }

    /**
     * A single-pass min/max quantizer (not ggml's {@code make_qkx2_quants} search, so not bit-identical
     * with llama.cpp's files, but a valid Q2_K encoding): per sub-block {@code step = (max − min(0, min))/3},
     * both 4-bit levels scaled by {@code d = max step / 15} and {@code dmin = max(−min) / 15}.
     */
    public static void quantize(float[] src, int srcOffset, int count, MemorySegment dst, long offset) {
        float[] steps = new float[16];
        float[] mins = new float[16];
        for (int block = 0; block < count / BLOCK_SIZE; block++) {
            int first = srcOffset + block * BLOCK_SIZE;
            long base = offset + (long) block * BLOCK_BYTES;
            Q4_KCodec.rangeSteps(src, first, 16, 3, steps, mins);
            LittleEndian.putHalf(dst, base + D_OFFSET, Q4_KCodec.max(steps) / 15f);
            LittleEndian.putHalf(dst, base + DMIN_OFFSET, Q4_KCodec.max(mins) / 15f);
            float d = LittleEndian.half(dst, base + D_OFFSET);
            float dmin = LittleEndian.half(dst, base + DMIN_OFFSET);
            int[] levels = new int[BLOCK_SIZE];
            for (int s = 0; s < 16; s++) {
                int ls = d == 0f ? 0 : Math.min(15, Math.round(steps[s] / d));
                int lm = dmin == 0f ? 0 : Math.min(15, Math.round(mins[s] / dmin));
                dst.set(ValueLayout.JAVA_BYTE, base + s, (byte) (ls | lm << 4));
                float step = d * ls;
                for (int l = 0; l < 16; l++) {
                    float x = src[first + 16 * s + l] + dmin * lm;
                    levels[16 * s + l] = step == 0f ? 0 : Math.clamp(Math.round(x / step), 0, 3);
                }
            }
            putLow2(levels, dst, base + QS_OFFSET);
        }
    }

    /** Packs the low two bits of {@code levels[0..256)} into the 64 bytes at {@code qs}, as {@link #low2} reads them. */
    static void putLow2(int[] levels, MemorySegment dst, long qs) {
        for (int n = 0; n < 2; n++) {
            for (int l = 0; l < 32; l++) {
                int packed = 0;
                for (int k = 0; k < 4; k++) {
                    packed |= (levels[128 * n + 32 * k + l] & 3) << (2 * k);
                }
                dst.set(ValueLayout.JAVA_BYTE, qs + 32L * n + l, (byte) packed);
            }
        }
    }
}
