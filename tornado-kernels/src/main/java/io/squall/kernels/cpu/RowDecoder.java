package io.squall.kernels.cpu;

import io.squall.kernels.GgmlType;
import io.squall.kernels.format.IQ4_NLCodec;
import io.squall.kernels.format.IQ4_XSCodec;
import io.squall.kernels.format.LittleEndian;
import io.squall.kernels.format.NibbleBlock;
import io.squall.kernels.format.Q2_KCodec;
import io.squall.kernels.format.Q3_KCodec;
import io.squall.kernels.format.Q4_0Codec;
import io.squall.kernels.format.Q4_KCodec;
import io.squall.kernels.format.Q5_KCodec;
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
    /** Lane indices 0, 1, 2, … */
    private static final IntVector LANE = IntVector.zero(I).addIndex(1);

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
            case Q4_1 -> nibble(NibbleBlock.Q4_1, false, w, off, cols / NibbleBlock.SIZE, dst, dstOff);
            case Q5_0 -> nibble(NibbleBlock.Q5_0, false, w, off, cols / NibbleBlock.SIZE, dst, dstOff);
            case Q5_1 -> nibble(NibbleBlock.Q5_1, false, w, off, cols / NibbleBlock.SIZE, dst, dstOff);
            case IQ4_NL -> nibble(IQ4_NLCodec.LAYOUT, true, w, off, cols / NibbleBlock.SIZE, dst, dstOff);
            case Q2_K, Q3_K -> twoBit(type == GgmlType.Q3_K, w, off, cols / Q2_KCodec.BLOCK_SIZE, dst, dstOff);
            case Q4_K -> q4_K(w, off, cols / Q4_KCodec.BLOCK_SIZE, dst, dstOff);
            case Q5_K -> q5_K(w, off, cols / Q5_KCodec.BLOCK_SIZE, dst, dstOff);
            case Q6_K -> q6_K(w, off, cols / Q6_KCodec.BLOCK_SIZE, dst, dstOff);
            case IQ4_XS -> iq4_XS(w, off, cols / IQ4_XSCodec.BLOCK_SIZE, dst, dstOff);
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
        kQuant(w, off, Q4_KCodec.BLOCK_BYTES, -1, Q4_KCodec.QS_OFFSET, blocks, dst, dstOff);
    }

    /** {@link #q4_K} with the fifth bits: bit {@code s} of {@code qh[l]} for sub-block {@code s}. */
    private static void q5_K(MemorySegment w, long off, int blocks, float[] dst, int dstOff) {
        kQuant(w, off, Q5_KCodec.BLOCK_BYTES, Q5_KCodec.QH_OFFSET, Q5_KCodec.QS_OFFSET, blocks, dst, dstOff);
    }

    /** Q4_K ({@code qh < 0}) and Q5_K: the shared header with eight 6-bit scales and mins. */
    private static void kQuant(MemorySegment w, long off, int blockBytes, int qh, int qs, int blocks, float[] dst,
                               int dstOff) {
        for (int i = 0; i < blocks; i++) {
            long base = off + (long) i * blockBytes;
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
                    IntVector packed = ints(w, base + qs + 32L * pair + j);
                    IntVector lo = packed.and(0x0F);
                    IntVector hi = packed.lanewise(VectorOperators.ASHR, 4).and(0x0F);
                    if (qh >= 0) {
                        IntVector high = ints(w, base + qh + j);
                        lo = lo.or(high.lanewise(VectorOperators.ASHR, 2 * pair).and(1).lanewise(VectorOperators.LSHL, 4));
                        hi = hi.or(high.lanewise(VectorOperators.ASHR, 2 * pair + 1).and(1).lanewise(VectorOperators.LSHL, 4));
                    }
                    toFloats(lo).fma(d0, m0).intoArray(dst, out + j);
                    toFloats(hi).fma(d1, m1).intoArray(dst, out + 32 + j);
                }
            }
        }
    }

    /**
     * Q4_1, Q5_0, Q5_1 and IQ4_NL: {@code (level − bias)·d + m}, or with {@code grid}
     * {@code d·VALUES[level]}. The fifth bit of lane {@code j} is {@code qh >>> j}, a per-lane shift.
     */
    private static void nibble(NibbleBlock layout, boolean grid, MemorySegment w, long off, int blocks, float[] dst,
                               int dstOff) {
        for (int i = 0; i < blocks; i++) {
            long base = off + (long) i * layout.blockBytes();
            float d = layout.d(w, base);
            float m = layout.min(w, base);
            IntVector qh = layout.qhOffset() < 0 ? null : IntVector.broadcast(I, w.get(LE_INT, base + layout.qhOffset()));
            int out = dstOff + i * NibbleBlock.SIZE;
            for (int j = 0; j < NibbleBlock.SIZE / 2; j += L) {
                IntVector packed = ints(w, base + layout.qsOffset() + j);
                IntVector lo = packed.and(0x0F);
                IntVector hi = packed.lanewise(VectorOperators.ASHR, 4).and(0x0F);
                if (qh != null) {
                    IntVector shift = LANE.add(j);
                    lo = lo.or(qh.lanewise(VectorOperators.LSHR, shift).and(1).lanewise(VectorOperators.LSHL, 4));
                    hi = hi.or(qh.lanewise(VectorOperators.LSHR, shift.add(16)).and(1).lanewise(VectorOperators.LSHL, 4));
                }
                if (grid) {
                    lo = Grid.values(lo);
                    hi = Grid.values(hi);
                } else if (layout.bias() != 0) {
                    lo = lo.sub(layout.bias());
                    hi = hi.sub(layout.bias());
                }
                toFloats(lo).fma(d, m).intoArray(dst, out + j);
                toFloats(hi).fma(d, m).intoArray(dst, out + NibbleBlock.SIZE / 2 + j);
            }
        }
    }

    /**
     * Q2_K and, with {@code hmask}, Q3_K: per half of 128 elements, each {@code qs} byte holds the
     * 2-bit levels of four elements 32 apart; Q3_K adds bit {@code 4n + k} of {@code hmask[l]}
     * ({@code q = low − 4 + 4·bit}). A vector of up to 16 lanes stays inside one 16-element sub-block.
     */
    private static void twoBit(boolean hmask, MemorySegment w, long off, int blocks, float[] dst, int dstOff) {
        int blockBytes = hmask ? Q3_KCodec.BLOCK_BYTES : Q2_KCodec.BLOCK_BYTES;
        long qs = hmask ? Q3_KCodec.QS_OFFSET : Q2_KCodec.QS_OFFSET;
        // Q2_K has no third bit: its hmask read (the block's first bytes) is masked away and nothing offset,
        // so no vector is assigned under a branch (C2 may box it)
        int thirdBit = hmask ? 1 : 0;
        int offset = hmask ? 4 : 0;
        for (int i = 0; i < blocks; i++) {
            long base = off + (long) i * blockBytes;
            float d = LittleEndian.half(w, base + (hmask ? Q3_KCodec.D_OFFSET : Q2_KCodec.D_OFFSET));
            float dmin = hmask ? 0f : LittleEndian.half(w, base + Q2_KCodec.DMIN_OFFSET);
            for (int n = 0; n < 2; n++) {
                for (int l = 0; l < 32; l += L) {
                    for (int k = 0; k < 4; k++) {
                        // scalars before vectors, and the bytes re-read per k (from L1): no vector is live
                        // across the codec calls, which C2 may decline to inline (a live vector is then boxed)
                        int s = 8 * n + 2 * k + (l >>> 4);
                        float scale = d * (hmask ? Q3_KCodec.scale(w, base, s) : Q2_KCodec.scale(w, base, s));
                        float min = hmask ? 0f : -dmin * Q2_KCodec.min(w, base, s);
                        IntVector q = ints(w, base + qs + 32L * n + l).lanewise(VectorOperators.ASHR, 2 * k).and(3)
                                .or(ints(w, base + l).lanewise(VectorOperators.ASHR, 4 * n + k).and(thirdBit)
                                        .lanewise(VectorOperators.LSHL, 2))
                                .sub(offset);
                        toFloats(q).fma(scale, min).intoArray(dst, dstOff + i * Q2_KCodec.BLOCK_SIZE + 128 * n + 32 * k + l);
                    }
                }
            }
        }
    }

    /** Per 32-element sub-block: IQ4_NL's nibbles at {@code qs[16s ..]}, scaled by {@code d·(ls − 32)}. */
    private static void iq4_XS(MemorySegment w, long off, int blocks, float[] dst, int dstOff) {
        for (int i = 0; i < blocks; i++) {
            long base = off + (long) i * IQ4_XSCodec.BLOCK_BYTES;
            float d = LittleEndian.half(w, base);
            // three loops of two, not one of eight, so that C2 unrolls them (see IntDots)
            for (int quarter = 0; quarter < 2; quarter++)
            for (int pair = 0; pair < 2; pair++)
            for (int h = 0; h < 2; h++) {
                int s = 4 * quarter + 2 * pair + h;
                float dl = d * IQ4_XSCodec.scale(w, base, s);
                int out = dstOff + i * IQ4_XSCodec.BLOCK_SIZE + 32 * s;
                for (int j = 0; j < 16; j += L) {
                    IntVector packed = ints(w, base + IQ4_XSCodec.QS_OFFSET + 16L * s + j);
                    toFloats(Grid.values(packed.and(0x0F))).mul(dl).intoArray(dst, out + j);
                    toFloats(Grid.values(packed.lanewise(VectorOperators.ASHR, 4).and(0x0F))).mul(dl)
                            .intoArray(dst, out + 16 + j);
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
                    // scales first: a vector live across a call C2 does not inline gets boxed
                    int s = 8 * n + (l >>> 4);
                    float d1 = d * Q6_KCodec.scale(w, base, s);
                    float d2 = d * Q6_KCodec.scale(w, base, s + 2);
                    float d3 = d * Q6_KCodec.scale(w, base, s + 4);
                    float d4 = d * Q6_KCodec.scale(w, base, s + 6);
                    IntVector ql0 = zeroExtended(w, base + 64L * n + l);
                    IntVector ql32 = zeroExtended(w, base + 64L * n + 32 + l);
                    IntVector qh = zeroExtended(w, base + Q6_KCodec.QH_OFFSET + 32L * n + l);
                    int out = dstOff + i * Q6_KCodec.BLOCK_SIZE + 128 * n + l;
                    IntVector q1 = ql0.and(0x0F).or(qh.lanewise(VectorOperators.LSHL, 4).and(0x30)).sub(32);
                    IntVector q2 = ql32.and(0x0F).or(qh.lanewise(VectorOperators.LSHL, 2).and(0x30)).sub(32);
                    IntVector q3 = ql0.lanewise(VectorOperators.LSHR, 4).or(qh.and(0x30)).sub(32);
                    IntVector q4 = ql32.lanewise(VectorOperators.LSHR, 4)
                            .or(qh.lanewise(VectorOperators.LSHR, 2).and(0x30)).sub(32);
                    ((FloatVector) q1.convert(VectorOperators.I2F, 0)).mul(d1).intoArray(dst, out);
                    ((FloatVector) q2.convert(VectorOperators.I2F, 0)).mul(d2).intoArray(dst, out + 32);
                    ((FloatVector) q3.convert(VectorOperators.I2F, 0)).mul(d3).intoArray(dst, out + 64);
                    ((FloatVector) q4.convert(VectorOperators.I2F, 0)).mul(d4).intoArray(dst, out + 96);
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

    /** {@link Lanes#L} bytes from {@code off}, zero-extended to int lanes. */
    private static IntVector zeroExtended(MemorySegment w, long off) {
        return (IntVector) ByteVector.fromMemorySegment(B, w, off, LE).convertShape(VectorOperators.ZERO_EXTEND_B2I, I, 0);
    }

    private static FloatVector toFloats(IntVector v) {
        return (FloatVector) v.convert(VectorOperators.I2F, 0);
    }
}
