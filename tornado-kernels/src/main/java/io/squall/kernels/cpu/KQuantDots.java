package io.squall.kernels.cpu;

import io.squall.kernels.format.LittleEndian;
import io.squall.kernels.format.Q4_KCodec;
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
     * with {@code sums[b] = Σ x[xo + 32b ..]} from {@link BlockSums}. The twelve packed scale bytes
     * are unpacked branch-free into a long of eight scales and a long of eight mins (ggml's
     * {@code kmask} trick), which measured 25% faster than {@link Q4_KCodec#scale}-style lookups.
     */
    static float q4_K(MemorySegment w, long off, float[] x, int xo, float[] sums, int blocks) {
        FloatVector acc0 = FloatVector.zero(F);
        FloatVector acc1 = FloatVector.zero(F);
        float mins = 0f;
        for (int i = 0; i < blocks; i++) {
            long base = off + (long) i * Q4_KCodec.BLOCK_BYTES;
            int xb = xo + i * Q4_KCodec.BLOCK_SIZE;
            float d = LittleEndian.half(w, base);
            float dmin = LittleEndian.half(w, base + Q4_KCodec.DMIN_OFFSET);
            int u0 = w.get(LE_INT, base + Q4_KCodec.SCALES_OFFSET);
            int u1 = w.get(LE_INT, base + Q4_KCodec.SCALES_OFFSET + 4);
            int u2 = w.get(LE_INT, base + Q4_KCodec.SCALES_OFFSET + 8);
            long scales = (u0 & 0x3f3f3f3fL)
                    | (long) ((u2 & 0x0f0f0f0f) | (((u0 >>> 6) & 0x03030303) << 4)) << 32;
            long minLevels = (u1 & 0x3f3f3f3fL)
                    | (long) (((u2 >>> 4) & 0x0f0f0f0f) | (((u1 >>> 6) & 0x03030303) << 4)) << 32;
            float minSum = 0f;
            for (int pair = 0; pair < 4; pair++) {
                long qs = base + Q4_KCodec.QS_OFFSET + 32L * pair;
                int xe = xb + 64 * pair;
                IntVector qa = (IntVector) ByteVector.fromMemorySegment(B, w, qs, LE)
                        .convertShape(VectorOperators.ZERO_EXTEND_B2I, I, 0);
                IntVector qb = (IntVector) ByteVector.fromMemorySegment(B, w, qs + 16, LE)
                        .convertShape(VectorOperators.ZERO_EXTEND_B2I, I, 0);
                FloatVector lo = ((FloatVector) qa.and(0x0F).convert(VectorOperators.I2F, 0))
                        .mul(FloatVector.fromArray(F, x, xe));
                lo = ((FloatVector) qb.and(0x0F).convert(VectorOperators.I2F, 0))
                        .fma(FloatVector.fromArray(F, x, xe + 16), lo);
                FloatVector hi = ((FloatVector) qa.lanewise(VectorOperators.LSHR, 4).convert(VectorOperators.I2F, 0))
                        .mul(FloatVector.fromArray(F, x, xe + 32));
                hi = ((FloatVector) qb.lanewise(VectorOperators.LSHR, 4).convert(VectorOperators.I2F, 0))
                        .fma(FloatVector.fromArray(F, x, xe + 48), hi);
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
