package io.squall.kernels.format;

import java.lang.foreign.MemorySegment;

/**
 * GGML {@code Q4_0}: blocks of 32 elements, 18 bytes: {@code f16 d} then {@code uint8 qs[16]}. The
 * low nibble of {@code qs[j]} is element {@code j}, the high nibble element {@code j + 16}; an
 * element is {@code d · (nibble − 8)} ({@link NibbleBlock#Q4_0}).
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
        NibbleBlock.Q4_0.dequantize(src, offset, dst, dstOffset, count);
    }

    /**
     * ggml's {@code quantize_row_q4_0_ref}: {@code d = max / −8} where {@code max} is the signed value
     * of largest magnitude, nibble {@code = min(15, trunc(x/d + 8.5))}. The extreme maps exactly to
     * nibble 0; other elements err by at most {@code |d|/2}, except those of the opposite sign beyond
     * {@code 7.5·|d|}, which clamp to nibble 15 and err by up to {@code |d|}.
     */
    public static void quantize(float[] src, int srcOffset, int count, MemorySegment dst, long offset) {
        NibbleBlock.Q4_0.quantize(src, srcOffset, count, dst, offset);
    }
}
