package io.squall.kernels.format;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * GGML {@code Q5_K}: super-blocks of 256 elements, 176 bytes: {@code f16 d}, {@code f16 dmin},
 * {@code uint8 scales[12]} (packed as Q4_K's, read with {@link Q4_KCodec#scale} and
 * {@link Q4_KCodec#min}), {@code uint8 qh[32]}, {@code uint8 qs[128]}. The low four bits of element
 * {@code i} of sub-block {@code s = i/32} are Q4_K's nibble at {@code qs}; bit {@code s} of
 * {@code qh[i mod 32]} is its fifth bit; an element is {@code d·scale[s]·q − dmin·min[s]}, {@code q} in 0..31.
 */
public final class Q5_KCodec {

    /** Elements per super-block. */
    public static final int BLOCK_SIZE = 256;
    /** Bytes per super-block. */
    public static final int BLOCK_BYTES = 176;
    /** Byte offset of {@code qh}. */
    public static final int QH_OFFSET = 16;
    /** Byte offset of {@code qs}. */
    public static final int QS_OFFSET = 48;

    private Q5_KCodec() {
    }

    /** The 5-bit level of element {@code i} (0..255) of the super-block at byte {@code block}. */
    public static int quant(MemorySegment src, long block, int i) {
        int s = i >>> 5;
        int q = LittleEndian.ubyte(src, block + QS_OFFSET + 32 * (s >>> 1) + (i & 31));
        int high = (LittleEndian.ubyte(src, block + QH_OFFSET + (i & 31)) >>> s) & 1;
        return ((s & 1) == 0 ? q & 0x0F : q >>> 4) | high << 4;
    }

    /** ggml's {@code dequantize_row_q5_K} over {@code count} elements (whole super-blocks). */
    public static void dequantize(MemorySegment src, long offset, float[] dst, int dstOffset, int count) {
        Q4_KCodec.dequantize(src, offset, dst, dstOffset, count, true);
    }

    /** The single-pass quantizer of {@link Q4_KCodec#quantizeScales} with 32 levels. */
    public static void quantize(float[] src, int srcOffset, int count, MemorySegment dst, long offset) {
        int[] levels = new int[BLOCK_SIZE];
        for (int block = 0; block < count / BLOCK_SIZE; block++) {
            long base = offset + (long) block * BLOCK_BYTES;
            Q4_KCodec.quantizeScales(src, srcOffset + block * BLOCK_SIZE, 31, dst, base, levels);
            Q4_KCodec.putNibblePairs(levels, dst, base + QS_OFFSET);
            for (int l = 0; l < 32; l++) {
                int bits = 0;
                for (int s = 0; s < 8; s++) {
                    bits |= ((levels[32 * s + l] >>> 4) & 1) << s;
                }
                dst.set(ValueLayout.JAVA_BYTE, base + QH_OFFSET + l, (byte) bits);
            }
        }
    }
}
