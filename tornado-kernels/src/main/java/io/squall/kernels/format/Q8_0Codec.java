package io.squall.kernels.format;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * GGML {@code Q8_0}: blocks of 32 elements, 34 bytes: {@code f16 d} then {@code int8 qs[32]};
 * element {@code j} is {@code d · qs[j]}.
 */
public final class Q8_0Codec {

    /** Elements per block. */
    public static final int BLOCK_SIZE = 32;
    /** Bytes per block. */
    public static final int BLOCK_BYTES = 34;
    /** Byte offset of {@code qs} inside a block. */
    public static final int QS_OFFSET = 2;

    private Q8_0Codec() {
    }

    /** Dequantizes {@code count} elements (whole blocks) whose first block starts at byte {@code offset}. */
    public static void dequantize(MemorySegment src, long offset, float[] dst, int dstOffset, int count) {
        for (int block = 0; block < count / BLOCK_SIZE; block++) {
            long base = offset + (long) block * BLOCK_BYTES;
            float d = LittleEndian.half(src, base);
            for (int j = 0; j < BLOCK_SIZE; j++) {
                dst[dstOffset + block * BLOCK_SIZE + j] = d * src.get(ValueLayout.JAVA_BYTE, base + QS_OFFSET + j);
            }
        }
    }

    /**
     * ggml's {@code quantize_row_q8_0_ref}: {@code d = max|x| / 127}, {@code qs = round(x / d)}
     * (half away from zero). Error per element is at most {@code d/2} plus the rounding of d to f16.
     */
    public static void quantize(float[] src, int srcOffset, int count, MemorySegment dst, long offset) {
        for (int block = 0; block < count / BLOCK_SIZE; block++) {
            int first = srcOffset + block * BLOCK_SIZE;
            long base = offset + (long) block * BLOCK_BYTES;
            float amax = 0f;
            for (int j = 0; j < BLOCK_SIZE; j++) {
                amax = Math.max(amax, Math.abs(src[first + j]));
            }
            float d = amax / 127f;
            float id = d != 0f ? 1f / d : 0f;
            LittleEndian.putHalf(dst, base, d);
            for (int j = 0; j < BLOCK_SIZE; j++) {
                dst.set(ValueLayout.JAVA_BYTE, base + QS_OFFSET + j, (byte) roundHalfAway(src[first + j] * id));
            }
        }
    }

    /** C's {@code roundf}: nearest integer, halves away from zero. */
    static int roundHalfAway(float v) {
        int magnitude = Math.round(Math.abs(v));
        return v < 0 ? -magnitude : magnitude;
    }
}
