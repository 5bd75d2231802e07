package io.squall.kernels.format;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * GGML {@code IQ4_XS}: super-blocks of 256 elements, 136 bytes: {@code f16 d}, {@code uint16 scales_h},
 * {@code uint8 scales_l[4]}, {@code uint8 qs[128]}. Sub-block {@code s} (32 elements) has the 6-bit
 * scale {@code ls = (scales_l[s/2] >> 4(s mod 2)) & 15 | ((scales_h >> 2s) & 3) << 4}; its 16 bytes
 * {@code qs[16s ..]} hold IQ4_NL's nibbles (low nibble {@code j}, high nibble {@code j + 16}); an element
 * is {@code d·(ls − 32)·VALUES[nibble]} with {@link IQ4_NLCodec#VALUES} (ggml's {@code dequantize_row_iq4_xs}).
 */
public final class IQ4_XSCodec {

    /** Elements per super-block. */
    public static final int BLOCK_SIZE = 256;
    /** Bytes per super-block. */
    public static final int BLOCK_BYTES = 136;
    /** Byte offset of {@code scales_h}. */
    public static final int SCALES_H_OFFSET = 2;
    /** Byte offset of {@code scales_l}. */
    public static final int SCALES_L_OFFSET = 4;
    /** Byte offset of {@code qs}. */
    public static final int QS_OFFSET = 8;

    private IQ4_XSCodec() {
    }

    /** The signed scale ({@code ls − 32}, in −32..31) of sub-block {@code s} (0..7). */
    public static int scale(MemorySegment src, long block, int s) {
        int low = (LittleEndian.ubyte(src, block + SCALES_L_OFFSET + (s >>> 1)) >>> (4 * (s & 1))) & 0x0F;
        int high = (Short.toUnsignedInt(src.get(LittleEndian.SHORT, block + SCALES_H_OFFSET)) >>> (2 * s)) & 3;
        return (low | high << 4) - 32;
    }

    /** The grid value of element {@code i} (0..255) of the super-block at byte {@code block}. */
    public static int quant(MemorySegment src, long block, int i) {
        int q = LittleEndian.ubyte(src, block + QS_OFFSET + 16 * (i >>> 5) + (i & 15));
        return IQ4_NLCodec.VALUES[(i & 16) == 0 ? q & 0x0F : q >>> 4];
    }

    /** ggml's {@code dequantize_row_iq4_xs} over {@code count} elements (whole super-blocks). */
    public static void dequantize(MemorySegment src, long offset, float[] dst, int dstOffset, int count) {
        for (int block = 0; block < count / BLOCK_SIZE; block++) {
            long base = offset + (long) block * BLOCK_BYTES;
            float d = LittleEndian.half(src, base);
            for (int s = 0; s < 8; s++) {
                float dl = d * scale(src, base, s);
                for (int l = 0; l < 32; l++) {
                    dst[dstOffset + block * BLOCK_SIZE + 32 * s + l] = dl * quant(src, base, 32 * s + l);
                }
            }
        }
    }

    /**
     * Per sub-block the grid step of {@link IQ4_NLCodec#scale}; the steps coded as 6-bit multiples of
     * {@code d = (step of largest magnitude) / −32}; then the nibbles of the grid values nearest to
     * {@code x / (d·(ls − 32))}. Not ggml's search, so not bit-identical with llama.cpp's files.
     */
    public static void quantize(float[] src, int srcOffset, int count, MemorySegment dst, long offset) {
        float[] steps = new float[8];
        for (int block = 0; block < count / BLOCK_SIZE; block++) {
            int first = srcOffset + block * BLOCK_SIZE;
            long base = offset + (long) block * BLOCK_BYTES;
            float maxStep = 0f;
            for (int s = 0; s < 8; s++) {
                steps[s] = IQ4_NLCodec.scale(src, first + 32 * s, 32);
                maxStep = Math.abs(steps[s]) > Math.abs(maxStep) ? steps[s] : maxStep;
            }
            LittleEndian.putHalf(dst, base, maxStep / -32f);
            float d = LittleEndian.half(dst, base);
            int scalesH = 0;
            for (int s = 0; s < 8; s++) {
                int ls = (d == 0f ? 0 : Math.clamp(Math.round(steps[s] / d), -32, 31)) + 32;
                long low = base + SCALES_L_OFFSET + (s >>> 1);
                dst.set(ValueLayout.JAVA_BYTE, low,
                        (byte) (((s & 1) == 0 ? 0 : LittleEndian.ubyte(dst, low)) | (ls & 0x0F) << (4 * (s & 1))));
                scalesH |= (ls >>> 4) << (2 * s);
                IQ4_NLCodec.putIndexes(src, first + 32 * s, d * (ls - 32), dst, base + QS_OFFSET + 16L * s);
            }
            dst.set(LittleEndian.SHORT, base + SCALES_H_OFFSET, (short) scalesH);
        }
    }
}
