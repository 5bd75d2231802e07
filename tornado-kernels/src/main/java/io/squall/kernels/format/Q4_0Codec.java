package io.squall.kernels.format;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * GGML {@code Q4_0}: blocks of 32 elements, 18 bytes: {@code f16 d} then {@code uint8 qs[16]}. The
 * low nibble of {@code qs[j]} is element {@code j}, the high nibble element {@code j + 16}; an
 * element is {@code d · (nibble − 8)}.
 */
public final class Q4_0Codec {

    /** Elements per block. */
    public static final int BLOCK_SIZE = 32;
    /** Bytes per block. */
    public static final int BLOCK_BYTES = 18;
    /** Byte offset of {@code qs} inside a block. */
    public static final int QS_OFFSET = 2;

    private Q4_0Codec() {
    }

    /** Dequantizes {@code count} elements (whole blocks) whose first block starts at byte {@code offset}. */
    public static void dequantize(MemorySegment src, long offset, float[] dst, int dstOffset, int count) {
        for (int block = 0; block < count / BLOCK_SIZE; block++) {
            long base = offset + (long) block * BLOCK_BYTES;
            float d = LittleEndian.half(src, base);
            int out = dstOffset + block * BLOCK_SIZE;
            for (int j = 0; j < BLOCK_SIZE / 2; j++) {
                int q = LittleEndian.ubyte(src, base + QS_OFFSET + j);
                dst[out + j] = d * ((q & 0x0F) - 8);
                dst[out + j + BLOCK_SIZE / 2] = d * ((q >>> 4) - 8);
            }
        }
    }

    /**
     * ggml's {@code quantize_row_q4_0_ref}: {@code d = max / −8} where {@code max} is the signed value
     * of largest magnitude, nibble {@code = min(15, trunc(x/d + 8.5))}. The extreme maps exactly to
     * nibble 0; other elements err by at most {@code |d|/2}, except those of the opposite sign beyond
     * {@code 7.5·|d|}, which clamp to nibble 15 and err by up to {@code |d|}.
     */
    public static void quantize(float[] src, int srcOffset, int count, MemorySegment dst, long offset) {
        for (int block = 0; block < count / BLOCK_SIZE; block++) {
            int first = srcOffset + block * BLOCK_SIZE;
            long base = offset + (long) block * BLOCK_BYTES;
            float amax = 0f;
            float max = 0f;
            for (int j = 0; j < BLOCK_SIZE; j++) {
                float v = src[first + j];
                if (amax < Math.abs(v)) {
                    amax = Math.abs(v);
                    max = v;
                }
            }
            float d = max / -8f;
            float id = d != 0f ? 1f / d : 0f;
            LittleEndian.putHalf(dst, base, d);
            for (int j = 0; j < BLOCK_SIZE / 2; j++) {
                int lo = Math.min(15, (int) (src[first + j] * id + 8.5f));
                int hi = Math.min(15, (int) (src[first + j + BLOCK_SIZE / 2] * id + 8.5f));
                dst.set(ValueLayout.JAVA_BYTE, base + QS_OFFSET + j, (byte) (lo | hi << 4));
            }
        }
    }
}
