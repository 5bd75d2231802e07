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
        dequantize(src, offset, dst, dstOffset, count, false);
    }

    /**
     * ggml's {@code dequantize_row_q4_K}, or with {@code fiveBit} {@code dequantize_row_q5_K}: the two
     * share the header and differ in the level ({@link #quant} or {@link Q5_KCodec#quant}).
     */
    static void dequantize(MemorySegment src, long offset, float[] dst, int dstOffset, int count, boolean fiveBit) {
        int blockBytes = fiveBit ? Q5_KCodec.BLOCK_BYTES : BLOCK_BYTES;
        for (int block = 0; block < count / BLOCK_SIZE; block++) {
            long base = offset + (long) block * blockBytes;
            float d = LittleEndian.half(src, base);
            float dmin = LittleEndian.half(src, base + DMIN_OFFSET);
            for (int s = 0; s < 8; s++) {
                float scale = d * scale(src, base, s);
                float min = dmin * min(src, base, s);
                int out = dstOffset + block * BLOCK_SIZE + 32 * s;
                for (int l = 0; l < 32; l++) {
                    int i = 32 * s + l;
                    dst[out + l] = scale * (fiveBit ? Q5_KCodec.quant(src, base, i) : quant(src, base, i)) - min;
                }
            }
        }
    }

    /**
     * A single-pass min/max quantizer (not ggml's iterative {@code make_qkx2_quants}, so not
     * bit-identical with llama.cpp's files, but a valid Q4_K encoding), see {@link #quantizeScales}.
     */
    public static void quantize(float[] src, int srcOffset, int count, MemorySegment dst, long offset) {
        int[] levels = new int[BLOCK_SIZE];
        for (int block = 0; block < count / BLOCK_SIZE; block++) {
            long base = offset + (long) block * BLOCK_BYTES;
            quantizeScales(src, srcOffset + block * BLOCK_SIZE, 15, dst, base, levels);
            putNibblePairs(levels, dst, base + QS_OFFSET);
        }
    }

    /**
     * The super-block header that Q4_K and Q5_K share, and the levels of its 256 elements: per
     * sub-block {@code step = (max − min(0, min)) / top}, both 6-bit levels scaled by the super-block's
     * {@code d = max step / 63} and {@code dmin = max(−min) / 63}; element level
     * {@code clamp(round((x + min)/step), 0, top)}. Writes {@code d}, {@code dmin} and the packed scales
     * at {@code base} and the levels into {@code levels}.
     */
    static void quantizeScales(float[] src, int first, int top, MemorySegment dst, long base, int[] levels) {
        float[] steps = new float[8];
        float[] mins = new float[8];
        rangeSteps(src, first, 32, top, steps, mins);
        LittleEndian.putHalf(dst, base, max(steps) / 63f);
        LittleEndian.putHalf(dst, base + DMIN_OFFSET, max(mins) / 63f);
        float d = LittleEndian.half(dst, base);
        float dmin = LittleEndian.half(dst, base + DMIN_OFFSET);
        byte[] packed = new byte[12];
        for (int s = 0; s < 8; s++) {
            int ls = d == 0f ? 0 : Math.min(63, Math.round(steps[s] / d));
            int lm = dmin == 0f ? 0 : Math.min(63, Math.round(mins[s] / dmin));
            if (s < 4) {
                packed[s] = (byte) ls;
                packed[s + 4] = (byte) lm;
            } else {
                packed[s + 4] = (byte) ((ls & 0x0F) | ((lm & 0x0F) << 4));
                packed[s - 4] |= (byte) ((ls >>> 4) << 6);
                packed[s] |= (byte) ((lm >>> 4) << 6);
            }
            float step = d * ls;
            float min = dmin * lm;
            for (int l = 0; l < 32; l++) {
                levels[32 * s + l] = step == 0f ? 0 : Math.clamp(Math.round((src[first + 32 * s + l] + min) / step), 0, top);
            }
        }
        MemorySegment.copy(packed, 0, dst, ValueLayout.JAVA_BYTE, base + SCALES_OFFSET, 12);
    }

    /**
     * For each of the {@code steps.length} sub-blocks of {@code size} elements from {@code src[first]}:
     * {@code steps[s] = (max − min(0, min)) / top} and {@code mins[s] = −min(0, min)}, the asymmetric
     * range that the K-quants with mins (Q2_K, Q4_K, Q5_K) quantize.
     */
    static void rangeSteps(float[] src, int first, int size, int top, float[] steps, float[] mins) {
        for (int s = 0; s < steps.length; s++) {
            float lo = 0f;
            float hi = 0f;
            for (int l = 0; l < size; l++) {
                lo = Math.min(lo, src[first + size * s + l]);
                hi = Math.max(hi, src[first + size * s + l]);
            }
            steps[s] = (hi - lo) / top;
            mins[s] = -lo;
        }
    }

    /** The largest of {@code values}, at least 0. */
    static float max(float[] values) {
        float max = 0f;
        for (float v : values) {
            max = Math.max(max, v);
        }
        return max;
    }

    /** Packs the low nibbles of {@code levels[0..256)} as Q4_K's {@code qs}: sub-block 2p low, 2p+1 high. */
    static void putNibblePairs(int[] levels, MemorySegment dst, long qs) {
        for (int pair = 0; pair < 4; pair++) {
            for (int l = 0; l < 32; l++) {
                int lo = levels[64 * pair + l] & 0x0F;
                int hi = levels[64 * pair + 32 + l] & 0x0F;
                dst.set(ValueLayout.JAVA_BYTE, qs + 32L * pair + l, (byte) (lo | hi << 4));
            }
        }
    }
}
