package io.squall.kernels.cpu;

import io.squall.kernels.GgmlType;
import io.squall.kernels.format.LittleEndian;
import io.squall.kernels.format.Q4_0Codec;
import io.squall.kernels.format.Q4_KCodec;
import io.squall.kernels.format.Q6_KCodec;
import io.squall.kernels.format.Q8_0Codec;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import static io.squall.kernels.cpu.Lanes.B;
import static io.squall.kernels.cpu.Lanes.F;
import static io.squall.kernels.cpu.Lanes.I;
import static io.squall.kernels.cpu.Lanes.L;
import static io.squall.kernels.cpu.Lanes.S;

/**
 * Vectorised dequantization of one weight row into a float buffer, with the same values as the
 * scalar codecs of {@code io.squall.kernels.format}. Used to decode a tile of rows once per matmul
 * call into a small per-thread buffer that then serves every activation row.
 */
final class RowDecoder {

    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final ValueLayout.OfLong LE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(LE);
    private static final ValueLayout.OfInt LE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(LE);

    private RowDecoder() {
    }

    /** Decodes the {@code cols} elements of {@code type} at byte {@code off} into {@code dst[dstOff ..]}. */
    static void decode(GgmlType type, MemorySegment w, long off, int cols, float[] dst, int dstOff) {
        switch (type) {
            case F32 -> MemorySegment.copy(w, LittleEndian.FLOAT, off, dst, dstOff, cols);
            case F16 -> f16(w, off, cols, dst, dstOff);
            case BF16 -> bf16(w, off, cols, dst, dstOff);
            case Q8_0 -> q8_0(w, off, cols / Q8_0Codec.BLOCK_SIZE, dst, dstOff);
            case Q4_0 -> q4_0(w, off, cols / Q4_0Codec.BLOCK_SIZE, dst, dstOff);
            case Q4_K -> q4_K(w, off, cols / Q4_KCodec.BLOCK_SIZE, dst, dstOff);
            case Q6_K -> q6_K(w, off, cols / Q6_KCodec.BLOCK_SIZE, dst, dstOff);
            default -> throw new IllegalArgumentException("no decoder for " + type);
        }
    }

    /**
     * IEEE half to float on integer lanes: {@code (h & 0x7fff) << 13} read as a float and scaled by
     * 2^112 re-biases the exponent of normals and subnormals alike; Inf/NaN ({@code exp = 31}) get
     * an all-ones float exponent; the sign is moved to bit 31.
     */
    private static void f16(MemorySegment w, long off, int cols, float[] dst, int dstOff) {
        int c = 0;
        for (int bound = F.loopBound(cols); c < bound; c += L) {
            IntVector h = (IntVector) ShortVector.fromMemorySegment(S, w, off + 2L * c, LE)
                    .convertShape(VectorOperators.S2I, I, 0);
            IntVector magnitude = h.and(0x7fff);
            IntVector shifted = magnitude.lanewise(VectorOperators.LSHL, 13);
            IntVector finite = shifted.reinterpretAsFloats().mul(0x1p112f).reinterpretAsInts();
            VectorMask<Integer> special = magnitude.compare(VectorOperators.GE, 0x7c00);
            IntVector bits = finite.blend(shifted.or(0x7f800000), special)
                    .or(h.and(0x8000).lanewise(VectorOperators.LSHL, 16));
            bits.reinterpretAsFloats().intoArray(dst, dstOff + c);
        }
        for (; c < cols; c++) {
            dst[dstOff + c] = LittleEndian.half(w, off + 2L * c);
        }
    }

    private static void bf16(MemorySegment w, long off, int cols, float[] dst, int dstOff) {
        int c = 0;
        for (int bound = F.loopBound(cols); c < bound; c += L) {
            ((IntVector) ShortVector.fromMemorySegment(S, w, off + 2L * c, LE).convertShape(VectorOperators.S2I, I, 0))
                    .lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().intoArray(dst, dstOff + c);
        }
        for (; c < cols; c++) {
            dst[dstOff + c] = Float.intBitsToFloat(w.get(LittleEndian.SHORT, off + 2L * c) << 16);
        }
    }

    private static void q8_0(MemorySegment w, long off, int blocks, float[] dst, int dstOff) {
        for (int i = 0; i < blocks; i++) {
            long base = off + (long) i * Q8_0Codec.BLOCK_BYTES;
            float d = LittleEndian.half(w, base);
            for (int j = 0; j < Q8_0Codec.BLOCK_SIZE; j += L) {
                widen(ByteVector.fromMemorySegment(B, w, base + Q8_0Codec.QS_OFFSET + j, LE)).mul(d)
                        .intoArray(dst, dstOff + i * Q8_0Codec.BLOCK_SIZE + j);
            }
        }
    }

    private static void q4_0(MemorySegment w, long off, int blocks, float[] dst, int dstOff) {
        for (int i = 0; i < blocks; i++) {
            long base = off + (long) i * Q4_0Codec.BLOCK_BYTES;
            float d = LittleEndian.half(w, base);
            int out = dstOff + i * Q4_0Codec.BLOCK_SIZE;
            for (int j = 0; j < Q4_0Codec.BLOCK_SIZE / 2; j += L) {
                IntVector packed = ints(w, base + Q4_0Codec.QS_OFFSET + j);
                toFloats(packed.and(0x0F).sub(8)).mul(d).intoArray(dst, out + j);
                toFloats(packed.lanewise(VectorOperators.ASHR, 4).and(0x0F).sub(8)).mul(d)
                        .intoArray(dst, out + Q4_0Codec.BLOCK_SIZE / 2 + j);
            }
        }
    }

    /** Per pair of sub-blocks: the low nibbles of 32 bytes, then their high nibbles; {@code d·sc·q − dmin·m}. */
    private static void q4_K(MemorySegment w, long off, int blocks, float[] dst, int dstOff) {
        for (int i = 0; i < blocks; i++) {
            long base = off + (long) i * Q4_KCodec.BLOCK_BYTES;
            float d = LittleEndian.half(w, base);
            float dmin = LittleEndian.half(w, base + Q4_KCodec.DMIN_OFFSET);
            long packedLo = w.get(LE_LONG, base + Q4_KCodec.SCALES_OFFSET);
            int packedHi = w.get(LE_INT, base + Q4_KCodec.SCALES_OFFSET + 8);
            for (int pair = 0; pair < 4; pair++) {
                float d0 = d * k4Scale(packedLo, packedHi, 2 * pair);
                float m0 = -dmin * k4Min(packedLo, packedHi, 2 * pair);
                float d1 = d * k4Scale(packedLo, packedHi, 2 * pair + 1);
                float m1 = -dmin * k4Min(packedLo, packedHi, 2 * pair + 1);
                int out = dstOff + i * Q4_KCodec.BLOCK_SIZE + 64 * pair;
                for (int j = 0; j < 32; j += L) {
                    IntVector packed = ints(w, base + Q4_KCodec.QS_OFFSET + 32L * pair + j);
                    toFloats(packed.and(0x0F)).fma(d0, m0).intoArray(dst, out + j);
                    toFloats(packed.lanewise(VectorOperators.ASHR, 4).and(0x0F)).fma(d1, m1).intoArray(dst, out + 32 + j);
                }
            }
        }
    }

    /** Per half of 128: four quants share one {@code ql} pair and one {@code qh} byte (see {@link Q6_KCodec}). */
    private static void q6_K(MemorySegment w, long off, int blocks, float[] dst, int dstOff) {
        for (int i = 0; i < blocks; i++) {
            long base = off + (long) i * Q6_KCodec.BLOCK_BYTES;
            float d = LittleEndian.half(w, base + Q6_KCodec.D_OFFSET);
            for (int n = 0; n < 2; n++) {
                for (int l = 0; l < 32; l += L) {
                    IntVector ql0 = ints(w, base + 64L * n + l);
                    IntVector ql32 = ints(w, base + 64L * n + 32 + l);
                    IntVector qh = ints(w, base + Q6_KCodec.QH_OFFSET + 32L * n + l);
                    int s = 8 * n + (l >>> 4);
                    int out = dstOff + i * Q6_KCodec.BLOCK_SIZE + 128 * n + l;
                    IntVector q1 = ql0.and(0x0F).or(qh.and(3).lanewise(VectorOperators.LSHL, 4));
                    IntVector q2 = ql32.and(0x0F)
                            .or(qh.lanewise(VectorOperators.ASHR, 2).and(3).lanewise(VectorOperators.LSHL, 4));
                    IntVector q3 = ql0.lanewise(VectorOperators.ASHR, 4).and(0x0F)
                            .or(qh.lanewise(VectorOperators.ASHR, 4).and(3).lanewise(VectorOperators.LSHL, 4));
                    IntVector q4 = ql32.lanewise(VectorOperators.ASHR, 4).and(0x0F)
                            .or(qh.lanewise(VectorOperators.ASHR, 6).and(3).lanewise(VectorOperators.LSHL, 4));
                    toFloats(q1.sub(32)).mul(d * Q6_KCodec.scale(w, base, s)).intoArray(dst, out);
                    toFloats(q2.sub(32)).mul(d * Q6_KCodec.scale(w, base, s + 2)).intoArray(dst, out + 32);
                    toFloats(q3.sub(32)).mul(d * Q6_KCodec.scale(w, base, s + 4)).intoArray(dst, out + 64);
                    toFloats(q4.sub(32)).mul(d * Q6_KCodec.scale(w, base, s + 6)).intoArray(dst, out + 96);
                }
            }
        }
    }

    /** Byte {@code k} (0..11) of Q4_K's packed scales, read once as a long and an int. */
    private static int scaleByte(long lo, int hi, int k) {
        return k < 8 ? (int) (lo >>> (8 * k)) & 0xFF : (hi >>> (8 * (k - 8))) & 0xFF;
    }

    /** {@link Q4_KCodec#scale} on the packed bytes in registers. */
    private static int k4Scale(long lo, int hi, int s) {
        return s < 4 ? scaleByte(lo, hi, s) & 63
                : (scaleByte(lo, hi, s + 4) & 0x0F) | ((scaleByte(lo, hi, s - 4) >>> 6) << 4);
    }

    /** {@link Q4_KCodec#min} on the packed bytes in registers. */
    private static int k4Min(long lo, int hi, int s) {
        return s < 4 ? scaleByte(lo, hi, s + 4) & 63
                : (scaleByte(lo, hi, s + 4) >>> 4) | ((scaleByte(lo, hi, s) >>> 6) << 4);
    }

    private static FloatVector widen(ByteVector bytes) {
        return (FloatVector) bytes.convertShape(VectorOperators.B2F, F, 0);
    }

    /**
     * {@link Lanes#L} bytes from {@code off}, sign-extended to int lanes. Nibble and bit-field
     * extraction then uses int shifts: x86 has no byte-lane shifts, and the emulated ones are slow.
     */
    private static IntVector ints(MemorySegment w, long off) {
        return (IntVector) ByteVector.fromMemorySegment(B, w, off, LE).convertShape(VectorOperators.B2I, I, 0);
    }

    private static FloatVector toFloats(IntVector v) {
        return (FloatVector) v.convert(VectorOperators.I2F, 0);
    }
}
