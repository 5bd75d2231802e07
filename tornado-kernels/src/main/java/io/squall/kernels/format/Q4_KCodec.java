package io.squall.kernels.format;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * GGML {@code Q4_K}: super-blocks of 256 elements, 144 bytes: {@code f16 d}, {@code f16 dmin},
 * {@code uint8 scales[12]} (eight 6-bit scales and eight 6-bit mins, packed as ggml's
 * {@code get_scale_min_k4} reads them), {@code uint8 qs[128]}. Sub-block {@code s} holds elements
 * {@code 32s .. 32s+31}: the low nibbles of {@code qs[32·(s/2) ..]} when {@code s} is even, the high
 * nibbles when odd; an element is {@code d·scale[s]·q − dmin·min[s]}.
 */
public final class Q4_KCodec {

    /** Elements per super-block. */
    public static final int BLOCK_SIZE = 256;
    /** Bytes per super-block. */
    public static final int BLOCK_BYTES = 144;
    /** Byte offset of {@code dmin}. */
    public static final int DMIN_OFFSET = 2;
    /** Byte offset of the packed scales. */
    public static final int SCALES_OFFSET = 4;
    /** Byte offset of {@code qs}. */
    public static final int QS_OFFSET = 16;

    private Q4_KCodec() {
    }

    /** The 6-bit scale of sub-block {@code s} (0..7) of the super-block at byte {@code block}. */
    public static int scale(MemorySegment src, long block, int s) {
        long q = block + SCALES_OFFSET;
        if (s < 4) {
            return LittleEndian.ubyte(src, q + s) & 63;
        }
        return (LittleEndian.ubyte(src, q + s + 4) & 0x0F) | ((LittleEndian.ubyte(src, q + s - 4) >>> 6) << 4);
    }

    /** The 6-bit min of sub-block {@code s} (0..7) of the super-block at byte {@code block}. */
    public static int min(MemorySegment src, long block, int s) {
        long q = block + SCALES_OFFSET;
        if (s < 4) {
            return LittleEndian.ubyte(src, q + s + 4) & 63;
        }
        return (LittleEndian.ubyte(src, q + s + 4) >>> 4) | ((LittleEndian.ubyte(src, q + s) >>> 6) << 4);
    }

    /** The 4-bit quant of element {@code i} (0..255) of the super-block at byte {@code block}. */
    public static int quant(MemorySegment src, long block, int i) {
        int s = i >>> 5;
        int q = LittleEndian.ubyte(src, block + QS_OFFSET + 32 * (s >>> 1) + (i & 31));
        return (s & 1) == 0 ? q & 0x0F : q >>> 4;
    }

    /** ggml's {@code dequantize_row_q4_K} over {@code count} elements (whole super-blocks). */
    public static void dequantize(MemorySegment src, long offset, float[] dst, int dstOffset, int count) {
        for (int block = 0; block < count / BLOCK_SIZE; block++) {
            long base = offset + (long) block * BLOCK_BYTES;
            float d = LittleEndian.half(src, base);
            float dmin = LittleEndian.half(src, base + DMIN_OFFSET);
            for (int s = 0; s < 8; s++) {
                float scale = d * scale(src, base, s);
                float min = dmin * min(src, base, s);
                int out = dstOffset + block * BLOCK_SIZE + 32 * s;
                for (int l = 0; l < 32; l++) {
                    dst[out + l] = scale * quant(src, base, 32 * s + l) - min;
                }
            }
        }
    }

    /**
     * A single-pass min/max quantizer (not ggml's iterative {@code make_qkx2_quants}, so not
     * bit-identical with llama.cpp's files, but a valid Q4_K encoding): per sub-block
     * {@code step = (max − min(0, min)) / 15}, both 6-bit levels scaled by the super-block's
     * {@code d = max step / 63} and {@code dmin = max(−min) / 63}.
     */
    public static void quantize(float[] src, int srcOffset, int count, MemorySegment dst, long offset) {
        float[] steps = new float[8];
        float[] mins = new float[8];
        for (int block = 0; block < count / BLOCK_SIZE; block++) {
            int first = srcOffset + block * BLOCK_SIZE;
            long base = offset + (long) block * BLOCK_BYTES;
            float maxStep = 0f;
            float maxMin = 0f;
            for (int s = 0; s < 8; s++) {
                float lo = 0f;
                float hi = 0f;
                for (int l = 0; l < 32; l++) {
                    lo = Math.min(lo, src[first + 32 * s + l]);
                    hi = Math.max(hi, src[first + 32 * s + l]);
                }
                steps[s] = (hi - lo) / 15f;
                mins[s] = -lo;
                maxStep = Math.max(maxStep, steps[s]);
                maxMin = Math.max(maxMin, mins[s]);
            }
            LittleEndian.putHalf(dst, base, maxStep / 63f);
            LittleEndian.putHalf(dst, base + DMIN_OFFSET, maxMin / 63f);
            float d = LittleEndian.half(dst, base);
            float dmin = LittleEndian.half(dst, base + DMIN_OFFSET);
            byte[] packed = new byte[12];
            int[] ls = new int[8];
            int[] lm = new int[8];
            for (int s = 0; s < 8; s++) {
                ls[s] = d == 0f ? 0 : Math.min(63, Math.round(steps[s] / d));
                lm[s] = dmin == 0f ? 0 : Math.min(63, Math.round(mins[s] / dmin));
                if (s < 4) {
                    packed[s] = (byte) ls[s];
                    packed[s + 4] = (byte) lm[s];
                } else {
                    packed[s + 4] = (byte) ((ls[s] & 0x0F) | ((lm[s] & 0x0F) << 4));
                    packed[s - 4] |= (byte) ((ls[s] >>> 4) << 6);
                    packed[s] |= (byte) ((lm[s] >>> 4) << 6);
                }
            }
            MemorySegment.copy(packed, 0, dst, ValueLayout.JAVA_BYTE, base + SCALES_OFFSET, 12);
            for (int pair = 0; pair < 4; pair++) {
                for (int l = 0; l < 32; l++) {
                    int lo = level(src[first + 64 * pair + l], d * ls[2 * pair], dmin * lm[2 * pair]);
                    int hi = level(src[first + 64 * pair + 32 + l], d * ls[2 * pair + 1], dmin * lm[2 * pair + 1]);
                    dst.set(ValueLayout.JAVA_BYTE, base + QS_OFFSET + 32L * pair + l, (byte) (lo | hi << 4));
                }
            }
        }
    }

    private static int level(float x, float step, float min) {
        return step == 0f ? 0 : Math.clamp(Math.round((x + min) / step), 0, 15);
    }
}
