package io.squall.kernels.cpu;

import io.squall.kernels.format.IQ4_XSCodec;
import io.squall.kernels.format.LittleEndian;
import io.squall.kernels.format.Q3_KCodec;
import io.squall.kernels.format.Q4_KCodec;
import io.squall.kernels.format.Q5_KCodec;
import io.squall.kernels.format.Q6_KCodec;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import static io.squall.kernels.cpu.Lanes.B;
import static io.squall.kernels.cpu.Lanes.F;
import static io.squall.kernels.cpu.Lanes.I;
import static io.squall.kernels.cpu.Lanes.L;

/**
 * Dot products of one K-quant weight row, read in place from its segment, with one activation row:
 * the decode (batch 1) path, replacing a decode into a per-thread buffer followed by a float dot.
 * Quants are zero-extended to int lanes (x86 has no byte shifts), converted to float, multiplied
 * with the activations and scaled once per sub-block; no vector crosses a call C2 might not inline
 * (see {@link FusedDots}).
 */
final class KQuantDots {

    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final ValueLayout.OfInt LE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(LE);

    private KQuantDots() {
    }

    /**
     * Q4_K row of {@code blocks} super-blocks from byte {@code off}, 16 lanes:
     * {@code Σ_s d·scale_s·(q_s · x_s) − dmin·Σ_s min_s·Σx_s} over the 32-element sub-blocks {@code s},
     * with {@code sums[b] = Σ x[xo + 32b ..]} from {@link BlockSums}.
     */
    static float q4_K(MemorySegment w, long off, float[] x, int xo, float[] sums, int blocks) {
        return k4(w, off, Q4_KCodec.BLOCK_BYTES, -1, Q4_KCodec.QS_OFFSET, x, xo, sums, blocks);
    }

    /** {@link #q4_K} for Q5_K: the same header and nibbles, plus bit {@code s} of {@code qh[l]} as 16. */
    static float q5_K(MemorySegment w, long off, float[] x, int xo, float[] sums, int blocks) {
        return k4(w, off, Q5_KCodec.BLOCK_BYTES, Q5_KCodec.QH_OFFSET, Q5_KCodec.QS_OFFSET, x, xo, sums, blocks);
    }

    /**
     * The Q4_K/Q5_K dot ({@code qh < 0}: no fifth bits). The twelve packed scale bytes are unpacked
     * branch-free into a long of eight scales and a long of eight mins (ggml's {@code kmask} trick),
     * which measured 25% faster than {@link Q4_KCodec#scale}-style lookups.
     */
    private static float k4(MemorySegment w, long off, int blockBytes, int qh, int qsOffset, float[] x, int xo,
                            float[] sums, int blocks) {
        FloatVector acc0 = FloatVector.zero(F);
        FloatVector acc1 = FloatVector.zero(F);
        IntVector highA = IntVector.zero(I);
        IntVector highB = highA;
        float mins = 0f;
        for (int i = 0; i < blocks; i++) {
            long base = off + (long) i * blockBytes;
            int xb = xo + i * Q4_KCodec.BLOCK_SIZE;
            float d = LittleEndian.half(w, base);
            float dmin = LittleEndian.half(w, base + Q4_KCodec.DMIN_OFFSET);
            long scales = scales(w, base + Q4_KCodec.SCALES_OFFSET);
            long minLevels = mins(w, base + Q4_KCodec.SCALES_OFFSET);
            if (qh >= 0) {
                highA = bytes(w, base + qh);
                highB = bytes(w, base + qh + 16);
            }
            float minSum = 0f;
            for (int pair = 0; pair < 4; pair++) {
                long qs = base + qsOffset + 32L * pair;
                int xe = xb + 64 * pair;
                IntVector qa = bytes(w, qs);
                IntVector qb = bytes(w, qs + 16);
                IntVector loA = qa.and(0x0F);
                IntVector loB = qb.and(0x0F);
                IntVector hiA = qa.lanewise(VectorOperators.LSHR, 4);
                IntVector hiB = qb.lanewise(VectorOperators.LSHR, 4);
                if (qh >= 0) {
                    loA = loA.or(highA.lanewise(VectorOperators.LSHR, 2 * pair).and(1).lanewise(VectorOperators.LSHL, 4));
                    loB = loB.or(highB.lanewise(VectorOperators.LSHR, 2 * pair).and(1).lanewise(VectorOperators.LSHL, 4));
                    hiA = hiA.or(highA.lanewise(VectorOperators.LSHR, 2 * pair + 1).and(1).lanewise(VectorOperators.LSHL, 4));
                    hiB = hiB.or(highB.lanewise(VectorOperators.LSHR, 2 * pair + 1).and(1).lanewise(VectorOperators.LSHL, 4));
                }
                FloatVector lo = ((FloatVector) loA.convert(VectorOperators.I2F, 0)).mul(FloatVector.fromArray(F, x, xe));
                lo = ((FloatVector) loB.convert(VectorOperators.I2F, 0)).fma(FloatVector.fromArray(F, x, xe + 16), lo);
                FloatVector hi = ((FloatVector) hiA.convert(VectorOperators.I2F, 0)).mul(FloatVector.fromArray(F, x, xe + 32));
                hi = ((FloatVector) hiB.convert(VectorOperators.I2F, 0)).fma(FloatVector.fromArray(F, x, xe + 48), hi);
                acc0 = lo.fma(FloatVector.broadcast(F, d * (int) ((scales >>> (16 * pair)) & 0xFF)), acc0);
                acc1 = hi.fma(FloatVector.broadcast(F, d * (int) ((scales >>> (16 * pair + 8)) & 0xFF)), acc1);
                int s = xe / BlockSums.BLOCK;
                minSum += (int) ((minLevels >>> (16 * pair)) & 0xFF) * sums[s]
                        + (int) ((minLevels >>> (16 * pair + 8)) & 0xFF) * sums[s + 1];
            }
            mins += dmin * minSum;
        }
        return acc0.add(acc1).reduceLanes(VectorOperators.ADD) - mins;
    }

    /**
     * Q3_K row of {@code blocks} super-blocks, 16 lanes: {@code Σ_s d·(scale_s − 32)·(q_s · x_s)} over the
     * 16-element sub-blocks. Per half {@code n} of 128, one 32-byte run of {@code qs} holds four levels per
     * byte and {@code hmask} the third bits (bit {@code 4n + k}); the sixteen 6-bit scales are unpacked
     * into two longs with ggml's {@code kmask} arithmetic.
     */
    static float q3_K(MemorySegment w, long off, float[] x, int xo, int blocks) {
        FloatVector acc0 = FloatVector.zero(F);
        FloatVector acc1 = FloatVector.zero(F);
        for (int i = 0; i < blocks; i++) {
            long base = off + (long) i * Q3_KCodec.BLOCK_BYTES;
            float d = LittleEndian.half(w, base + Q3_KCodec.D_OFFSET);
            // the hmask bits moved to bit 2 up front: bit 4n + k then lands there after a shift right by 4n + k
            IntVector hmA = bytes(w, base).lanewise(VectorOperators.LSHL, 2);
            IntVector hmB = bytes(w, base + 16).lanewise(VectorOperators.LSHL, 2);
            for (int n = 0; n < 2; n++) {
                IntVector qa = bytes(w, base + Q3_KCodec.QS_OFFSET + 32L * n);
                IntVector qb = bytes(w, base + Q3_KCodec.QS_OFFSET + 32L * n + 16);
                long sc = q3Scales(w, base + Q3_KCodec.SCALES_OFFSET, n);
                int xe = xo + i * Q3_KCodec.BLOCK_SIZE + 128 * n;
                for (int k = 0; k < 4; k++) {
                    IntVector la = qa.lanewise(VectorOperators.LSHR, 2 * k).and(3)
                            .or(hmA.lanewise(VectorOperators.LSHR, 4 * n + k).and(4));
                    IntVector lb = qb.lanewise(VectorOperators.LSHR, 2 * k).and(3)
                            .or(hmB.lanewise(VectorOperators.LSHR, 4 * n + k).and(4));
                    float da = d * ((int) ((sc >>> (16 * k)) & 0xFF) - 32);
                    float db = d * ((int) ((sc >>> (16 * k + 8)) & 0xFF) - 32);
                    acc0 = ((FloatVector) la.sub(4).convert(VectorOperators.I2F, 0)).mul(da)
                            .fma(FloatVector.fromArray(F, x, xe + 32 * k), acc0);
                    acc1 = ((FloatVector) lb.sub(4).convert(VectorOperators.I2F, 0)).mul(db)
                            .fma(FloatVector.fromArray(F, x, xe + 32 * k + 16), acc1);
                }
            }
        }
        return acc0.add(acc1).reduceLanes(VectorOperators.ADD);
    }

    /**
     * IQ4_XS row of {@code blocks} super-blocks, 16 lanes: {@code Σ_s d·(ls_s − 32)·(grid(q_s) · x_s)} over
     * the 32-element sub-blocks; the nibbles of sub-block {@code s} are the 16 bytes {@code qs[16s ..]}.
     */
    static float iq4_XS(MemorySegment w, long off, float[] x, int xo, int blocks) {
        FloatVector acc0 = FloatVector.zero(F);
        FloatVector acc1 = FloatVector.zero(F);
        for (int i = 0; i < blocks; i++) {
            long base = off + (long) i * IQ4_XSCodec.BLOCK_BYTES;
            float d = LittleEndian.half(w, base);
            int scalesHigh = w.get(LittleEndian.SHORT, base + IQ4_XSCodec.SCALES_H_OFFSET);
            int scalesLow = w.get(LE_INT, base + IQ4_XSCodec.SCALES_L_OFFSET);
            int xb = xo + i * IQ4_XSCodec.BLOCK_SIZE;
            for (int s = 0; s < 8; s += 2) {
                IntVector qa = bytes(w, base + IQ4_XSCodec.QS_OFFSET + 16L * s);
                IntVector qb = bytes(w, base + IQ4_XSCodec.QS_OFFSET + 16L * s + 16);
                FloatVector a = ((FloatVector) Grid.values(qa.and(0x0F)).convert(VectorOperators.I2F, 0))
                        .mul(FloatVector.fromArray(F, x, xb + 32 * s));
                a = ((FloatVector) Grid.values(qa.lanewise(VectorOperators.LSHR, 4)).convert(VectorOperators.I2F, 0))
                        .fma(FloatVector.fromArray(F, x, xb + 32 * s + 16), a);
                FloatVector b = ((FloatVector) Grid.values(qb.and(0x0F)).convert(VectorOperators.I2F, 0))
                        .mul(FloatVector.fromArray(F, x, xb + 32 * s + 32));
                b = ((FloatVector) Grid.values(qb.lanewise(VectorOperators.LSHR, 4)).convert(VectorOperators.I2F, 0))
                        .fma(FloatVector.fromArray(F, x, xb + 32 * s + 48), b);
                int la = ((scalesLow >>> (4 * s)) & 0x0F) | ((scalesHigh >>> (2 * s)) & 3) << 4;
                int lb = ((scalesLow >>> (4 * s + 4)) & 0x0F) | ((scalesHigh >>> (2 * s + 2)) & 3) << 4;
                acc0 = a.fma(FloatVector.broadcast(F, d * (la - 32)), acc0);
                acc1 = b.fma(FloatVector.broadcast(F, d * (lb - 32)), acc1);
            }
        }
        return acc0.add(acc1).reduceLanes(VectorOperators.ADD);
    }

    /**
     * The eight 6-bit scales of a Q4_K/Q5_K super-block, one per byte of a long (sub-block {@code s} in byte
     * {@code s}), from its twelve packed bytes at {@code at}: ggml's {@code kmask} unpacking, branch-free.
     */
    static long scales(MemorySegment w, long at) {
        int u0 = w.get(LE_INT, at);
        int u2 = w.get(LE_INT, at + 8);
        return (u0 & 0x3f3f3f3fL) | (long) ((u2 & 0x0f0f0f0f) | (((u0 >>> 6) & 0x03030303) << 4)) << 32;
    }

    /**
     * The eight 6-bit scales of half {@code n} (0 or 1) of a Q3_K super-block, one per byte of a long (group
     * {@code 8n + j} in byte {@code j}), from its twelve packed bytes at {@code at}: ggml's {@code kmask} unpacking.
     */
    static long q3Scales(MemorySegment w, long at, int n) {
        int a0 = w.get(LE_INT, at);
        int a1 = w.get(LE_INT, at + 4);
        int a2 = w.get(LE_INT, at + 8);
        int shift = 4 * n;
        return (((a0 >>> shift) & 0x0f0f0f0f) | (((a2 >>> shift) & 0x03030303) << 4)) & 0xFFFFFFFFL
                | (long) (((a1 >>> shift) & 0x0f0f0f0f) | (((a2 >>> (shift + 2)) & 0x03030303) << 4)) << 32;
    }

    /** The eight 6-bit mins of the same super-block, laid out as {@link #scales}. */
    static long mins(MemorySegment w, long at) {
        int u1 = w.get(LE_INT, at + 4);
        int u2 = w.get(LE_INT, at + 8);
        return (u1 & 0x3f3f3f3fL) | (long) (((u2 >>> 4) & 0x0f0f0f0f) | (((u1 >>> 6) & 0x03030303) << 4)) << 32;
    }

    /** 16 bytes from {@code off}, zero-extended to int lanes. */
    private static IntVector bytes(MemorySegment w, long off) {
        return (IntVector) ByteVector.fromMemorySegment(B, w, off, LE).convertShape(VectorOperators.ZERO_EXTEND_B2I, I, 0);
    }

    /**
     * Q6_K row of {@code blocks} super-blocks from byte {@code off}: {@code Σ d·scale_s·(q − 32)·x}.
     * Per half of 128 elements, four quants share one {@code ql} pair and one {@code qh} byte (see
     * {@link Q6_KCodec}); each of the four feeds its own accumulator.
     */
    static float q6_K(MemorySegment w, long off, float[] x, int xo, int blocks) {
        FloatVector acc0 = FloatVector.zero(F);
        FloatVector acc1 = FloatVector.zero(F);
        FloatVector acc2 = FloatVector.zero(F);
        FloatVector acc3 = FloatVector.zero(F);
        for (int i = 0; i < blocks; i++) {
            long base = off + (long) i * Q6_KCodec.BLOCK_BYTES;
            float d = LittleEndian.half(w, base + Q6_KCodec.D_OFFSET);
            for (int n = 0; n < 2; n++) {
                for (int l = 0; l < 32; l += L) {
                    IntVector ql0 = (IntVector) ByteVector.fromMemorySegment(B, w, base + 64L * n + l, LE)
                            .convertShape(VectorOperators.ZERO_EXTEND_B2I, I, 0);
                    IntVector ql32 = (IntVector) ByteVector.fromMemorySegment(B, w, base + 64L * n + 32 + l, LE)
                            .convertShape(VectorOperators.ZERO_EXTEND_B2I, I, 0);
                    IntVector qh = (IntVector) ByteVector
                            .fromMemorySegment(B, w, base + Q6_KCodec.QH_OFFSET + 32L * n + l, LE)
                            .convertShape(VectorOperators.ZERO_EXTEND_B2I, I, 0);
                    IntVector q1 = ql0.and(0x0F).or(qh.lanewise(VectorOperators.LSHL, 4).and(0x30)).sub(32);
                    IntVector q2 = ql32.and(0x0F).or(qh.lanewise(VectorOperators.LSHL, 2).and(0x30)).sub(32);
                    IntVector q3 = ql0.lanewise(VectorOperators.LSHR, 4).or(qh.and(0x30)).sub(32);
                    IntVector q4 = ql32.lanewise(VectorOperators.LSHR, 4)
                            .or(qh.lanewise(VectorOperators.LSHR, 2).and(0x30)).sub(32);
                    long sc = base + Q6_KCodec.SCALES_OFFSET + 8 * n + (l >>> 4);
                    int xe = i * Q6_KCodec.BLOCK_SIZE + xo + 128 * n + l;
                    acc0 = ((FloatVector) q1.convert(VectorOperators.I2F, 0)).mul(d * w.get(ValueLayout.JAVA_BYTE, sc))
                            .fma(FloatVector.fromArray(F, x, xe), acc0);
                    acc1 = ((FloatVector) q2.convert(VectorOperators.I2F, 0)).mul(d * w.get(ValueLayout.JAVA_BYTE, sc + 2))
                            .fma(FloatVector.fromArray(F, x, xe + 32), acc1);
                    acc2 = ((FloatVector) q3.convert(VectorOperators.I2F, 0)).mul(d * w.get(ValueLayout.JAVA_BYTE, sc + 4))
                            .fma(FloatVector.fromArray(F, x, xe + 64), acc2);
                    acc3 = ((FloatVector) q4.convert(VectorOperators.I2F, 0)).mul(d * w.get(ValueLayout.JAVA_BYTE, sc + 6))
                            .fma(FloatVector.fromArray(F, x, xe + 96), acc3);
                }
            }
        }
        return acc0.add(acc1).add(acc2.add(acc3)).reduceLanes(VectorOperators.ADD);
    }
}
