package io.squall.kernels.format;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The 32-element block layout that Q4_0, Q4_1, Q5_0, Q5_1 and IQ4_NL share: a header ({@code f16 d},
 * and {@code f16 m} for the offset formats), for the 5-bit formats a little-endian 32-bit word
 * {@code qh} whose bit {@code j} is the fifth bit of element {@code j}, then 16 bytes {@code qs} whose
 * low nibble {@code j} is element {@code j} and high nibble element {@code j + 16}. An element is
 * {@code d · (level − bias) + m}, where {@code level = nibble | fifthBit·16} (IQ4_NL maps the nibble
 * through a table instead, see {@link IQ4_NLCodec}).
 *
 * @param blockBytes bytes per block
 * @param mOffset byte offset of {@code m}, or −1 when the format has none
 * @param qhOffset byte offset of {@code qh}, or −1 for the 4-bit formats
 * @param qsOffset byte offset of {@code qs}
 * @param bias subtracted from every level: 8 for Q4_0, 16 for Q5_0, 0 for the offset formats
 */
public record NibbleBlock(int blockBytes, int mOffset, int qhOffset, int qsOffset, int bias) {

    /** Elements per block. */
    public static final int SIZE = 32;

    /** GGML {@code Q4_0}, 18 bytes: {@code f16 d}, {@code qs[16]}; {@code d·(q − 8)}. */
    public static final NibbleBlock Q4_0 = new NibbleBlock(18, -1, -1, 2, 8);
    /** GGML {@code Q4_1}, 20 bytes: {@code f16 d}, {@code f16 m}, {@code qs[16]}; {@code d·q + m}. */
    public static final NibbleBlock Q4_1 = new NibbleBlock(20, 2, -1, 4, 0);
    /** GGML {@code Q5_0}, 22 bytes: {@code f16 d}, {@code qh}, {@code qs[16]}; {@code d·(q − 16)}. */
    public static final NibbleBlock Q5_0 = new NibbleBlock(22, -1, 2, 6, 16);
    /** GGML {@code Q5_1}, 24 bytes: {@code f16 d}, {@code f16 m}, {@code qh}, {@code qs[16]}; {@code d·q + m}. */
    public static final NibbleBlock Q5_1 = new NibbleBlock(24, 2, 4, 8, 0);

    static final ValueLayout.OfInt LE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** The unbiased level (0..15, or 0..31 with fifth bits) of element {@code j} of the block at byte {@code block}. */
    public int level(MemorySegment src, long block, int j) {
        int q = LittleEndian.ubyte(src, block + qsOffset + (j & 15));
        int nibble = j < 16 ? q & 0x0F : q >>> 4;
        return qhOffset < 0 ? nibble : nibble | ((src.get(LE_INT, block + qhOffset) >>> j) & 1) << 4;
    }

    /** {@code d} of the block at byte {@code block}. */
    public float d(MemorySegment src, long block) {
        return LittleEndian.half(src, block);
    }

    /** {@code m} of the block at byte {@code block}, 0 for the symmetric formats. */
    public float min(MemorySegment src, long block) {
        return mOffset < 0 ? 0f : LittleEndian.half(src, block + mOffset);
    }

    /** ggml's {@code dequantize_row_*}: {@code (level − bias)·d + m} over {@code count} elements (whole blocks). */
    public void dequantize(MemorySegment src, long offset, float[] dst, int dstOffset, int count) {
        for (int block = 0; block < count / SIZE; block++) {
            long base = offset + (long) block * blockBytes;
            float d = d(src, base);
            float m = min(src, base);
            for (int j = 0; j < SIZE; j++) {
                dst[dstOffset + block * SIZE + j] = (level(src, base, j) - bias) * d + m;
            }
        }
    }

    /**
     * ggml's reference quantizers. Offset formats ({@code quantize_row_q4_1_ref}, {@code _q5_1_ref}):
     * {@code d = (max − min)/top}, {@code m = min}, level {@code = min(top, trunc((x − min)/d + 0.5))}.
     * Symmetric ones ({@code _q4_0_ref}, {@code _q5_0_ref}): {@code d = max / −bias} where {@code max}
     * is the signed value of largest magnitude, level {@code = min(top, trunc(x/d + bias + 0.5))}. Here
     * {@code top} is 15 or 31. The extreme maps exactly; other elements err by at most {@code |d|/2},
     * except (symmetric) those of the opposite sign beyond {@code (top − bias + 0.5)·|d|}, which clamp.
     */
    public void quantize(float[] src, int srcOffset, int count, MemorySegment dst, long offset) {
        int top = qhOffset < 0 ? 15 : 31;
        int[] levels = new int[SIZE];
        for (int block = 0; block < count / SIZE; block++) {
            int first = srcOffset + block * SIZE;
            long base = offset + (long) block * blockBytes;
            float lo = Float.MAX_VALUE;
            float hi = -Float.MAX_VALUE;
            float amax = 0f;
            float max = 0f;
            for (int j = 0; j < SIZE; j++) {
                float v = src[first + j];
                lo = Math.min(lo, v);
                hi = Math.max(hi, v);
                if (amax < Math.abs(v)) {
                    amax = Math.abs(v);
                    max = v;
                }
            }
            float d = mOffset < 0 ? max / -bias : (hi - lo) / top;
            float m = mOffset < 0 ? 0f : lo;
            float id = d != 0f ? 1f / d : 0f;
            LittleEndian.putHalf(dst, base, d);
            if (mOffset >= 0) {
                LittleEndian.putHalf(dst, base + mOffset, m);
            }
            for (int j = 0; j < SIZE; j++) {
                levels[j] = Math.min(top, (int) ((src[first + j] - m) * id + (bias + 0.5f)));
            }
            putLevels(levels, dst, base);
        }
    }

    /** Packs {@code levels[0..32)}: the low four bits into {@code qs}, bit 4 into {@code qh} when the format has it. */
    void putLevels(int[] levels, MemorySegment dst, long block) {
        int bits = 0;
        for (int j = 0; j < SIZE; j++) {
            bits |= ((levels[j] >>> 4) & 1) << j;
        }
        for (int j = 0; j < SIZE / 2; j++) {
            dst.set(ValueLayout.JAVA_BYTE, block + qsOffset + j,
                    (byte) ((levels[j] & 0x0F) | (levels[j + SIZE / 2] & 0x0F) << 4));
        }
        if (qhOffset >= 0) {
            dst.set(LE_INT, block + qhOffset, bits);
        }
    }
}
