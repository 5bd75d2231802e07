package io.squall.kernels.format;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * GGML {@code Q6_K}: super-blocks of 256 elements, 210 bytes: {@code uint8 ql[128]} (low 4 bits),
 * {@code uint8 qh[64]} (high 2 bits), {@code int8 scales[16]}, {@code f16 d}. Element {@code i}
 * of sub-block {@code i/16} is {@code d · scales[i/16] · (q − 32)} where, within half
 * {@code n = i/128} and {@code l = i mod 32}, {@code k = (i mod 128)/32}:
 * {@code q = (ql[64n + l + 32(k&1)] >> 4(k>>1)) & 15 | ((qh[32n + l] >> 2k) & 3) << 4}
 * (ggml's {@code dequantize_row_q6_K}).
 */
public final class Q6_KCodec {

    /** Elements per super-block. */
    public static final int BLOCK_SIZE = 256;
    /** Bytes per super-block. */
    public static final int BLOCK_BYTES = 210;
    /** Byte offset of {@code qh}. */
    public static final int QH_OFFSET = 128;
    /** Byte offset of the 16 signed scales. */
    public static final int SCALES_OFFSET = 192;
    /** Byte offset of {@code d}. */
    public static final int D_OFFSET = 208;

    private Q6_KCodec() {
    }

    /** The signed 6-bit quant ({@code q − 32}, in −32..31) of element {@code i} of the block at byte {@code block}. */
    public static int quant(MemorySegment src, long block, int i) {
        int n = i >>> 7;
        int k = (i & 127) >>> 5;
        int l = i & 31;
        int low = (LittleEndian.ubyte(src, block + 64L * n + l + 32 * (k & 1)) >>> (4 * (k >>> 1))) & 0x0F;
        int high = (LittleEndian.ubyte(src, block + QH_OFFSET + 32L * n + l) >>> (2 * k)) & 3;
        return (low | high << 4) - 32;
    }

    /** The signed scale of 16-element sub-block {@code s} (0..15). */
    public static int scale(MemorySegment src, long block, int s) {
        return src.get(ValueLayout.JAVA_BYTE, block + SCALES_OFFSET + s);
    }

    /** ggml's {@code dequantize_row_q6_K} over {@code count} elements (whole super-blocks). */
    public static void dequantize(MemorySegment src, long offset, float[] dst, int dstOffset, int count) {
        for (int block = 0; block < count / BLOCK_SIZE; block++) {
            long base = offset + (long) block * BLOCK_BYTES;
            float d = LittleEndian.half(src, base + D_OFFSET);
            for (int i = 0; i < BLOCK_SIZE; i++) {
                dst[dstOffset + block * BLOCK_SIZE + i] = d * scale(src, base, i >>> 4) * quant(src, base, i);
            }
        }
    }

    /**
     * A single-pass absmax quantizer (not ggml's {@code make_qx_quants} search, so not bit-identical
     * with llama.cpp's files, but a valid Q6_K encoding): sub-block step {@code max|x| / 31}, steps
     * coded as int8 multiples of {@code d = max step / 127}, quants {@code clamp(round(x / step), −32, 31)}.
     */
    public static void quantize(float[] src, int srcOffset, int count, MemorySegment dst, long offset) {
        float[] steps = new float[16];
        int[] q = new int[BLOCK_SIZE];
        for (int block = 0; block < count / BLOCK_SIZE; block++) {
            int first = srcOffset + block * BLOCK_SIZE;
            long base = offset + (long) block * BLOCK_BYTES;
            float maxStep = 0f;
            for (int s = 0; s < 16; s++) {
                float amax = 0f;
                for (int l = 0; l < 16; l++) {
                    amax = Math.max(amax, Math.abs(src[first + 16 * s + l]));
                }
                steps[s] = amax / 31f;
                maxStep = Math.max(maxStep, steps[s]);
            }
            LittleEndian.putHalf(dst, base + D_OFFSET, maxStep / 127f);
            float d = LittleEndian.half(dst, base + D_OFFSET);
            for (int s = 0; s < 16; s++) {
                int sc = d == 0f ? 0 : Math.min(127, Math.round(steps[s] / d));
                dst.set(ValueLayout.JAVA_BYTE, base + SCALES_OFFSET + s, (byte) sc);
                float step = d * sc;
                for (int l = 0; l < 16; l++) {
                    int i = 16 * s + l;
                    q[i] = step == 0f ? 32 : Math.clamp(Math.round(src[first + i] / step), -32, 31) + 32;
                }
            }
            for (int n = 0; n < 2; n++) {
                for (int l = 0; l < 32; l++) {
                    int q1 = q[128 * n + l];
                    int q2 = q[128 * n + l + 32];
                    int q3 = q[128 * n + l + 64];
                    int q4 = q[128 * n + l + 96];
                    dst.set(ValueLayout.JAVA_BYTE, base + 64L * n + l, (byte) ((q1 & 0x0F) | (q3 & 0x0F) << 4));
                    dst.set(ValueLayout.JAVA_BYTE, base + 64L * n + l + 32, (byte) ((q2 & 0x0F) | (q4 & 0x0F) << 4));
                    dst.set(ValueLayout.JAVA_BYTE, base + QH_OFFSET + 32L * n + l,
                            (byte) ((q1 >>> 4) | (q2 >>> 4) << 2 | (q3 >>> 4) << 4 | (q4 >>> 4) << 6));
                }
            }
        }
    }
}
