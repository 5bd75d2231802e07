package io.squall.kernels.cpu;

import io.squall.kernels.format.LittleEndian;
import io.squall.kernels.format.Q4_0Codec;
import io.squall.kernels.format.Q8_0Codec;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;

import static io.squall.kernels.cpu.Lanes.B;
import static io.squall.kernels.cpu.Lanes.F;
import static io.squall.kernels.cpu.Lanes.I;
import static io.squall.kernels.cpu.Lanes.L;

/**
 * Dot products of one weight row, read in place from its segment, with one activation row (or, for
 * Q8_0, four at once): the decode path at small batches, where matmul is bound by memory bandwidth.
 *
 * <p>{@link #q8_0} and {@link #q4_0} need 16 float lanes ({@link #SIXTEEN_LANES}): each 32-element
 * block is two vectors, written out without an inner loop or a helper returning a vector (C2 keeps
 * such loops rolled, and a helper it declines to inline, as happens once other formats have run,
 * boxes its vectors; both measured 10–30% slower). The {@code AnyWidth} versions serve 8 lanes.
 */
final class FusedDots {

    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    private FusedDots() {
    }

    /**
     * {@code Σ_c w[c]·x[xo+c]} over {@code n} F32 weights from byte {@code off}. Two vectors a trip into two
     * accumulators: with four a trip, C2's unrolled loop issued each trip's loads in descending order (grouped by
     * accumulator chain) and one thread drew 13 GB/s from DRAM, two 24; with two a trip, 21–26 and 40–44
     * (32000x768, AMD Zen 5; docs/BENCHMARKS.md).
     */
    static float f32(MemorySegment w, long off, float[] x, int xo, int n) {
        FloatVector acc0 = FloatVector.zero(F);
        FloatVector acc1 = FloatVector.zero(F);
        int c = 0;
        for (int bound = n - n % (2 * L); c < bound; c += 2 * L) {
            long o = off + 4L * c;
            acc0 = FloatVector.fromMemorySegment(F, w, o, LE).fma(FloatVector.fromArray(F, x, xo + c), acc0);
            acc1 = FloatVector.fromMemorySegment(F, w, o + 4L * L, LE).fma(FloatVector.fromArray(F, x, xo + c + L), acc1);
        }
        for (int bound = F.loopBound(n); c < bound; c += L) {
            acc0 = FloatVector.fromMemorySegment(F, w, off + 4L * c, LE).fma(FloatVector.fromArray(F, x, xo + c), acc0);
        }
        float sum = acc0.add(acc1).reduceLanes(VectorOperators.ADD);
        for (; c < n; c++) {
            sum += w.get(LittleEndian.FLOAT, off + 4L * c) * x[xo + c];
        }
        return sum;
    }

    /**
     * {@link #f32} of the rows {@code row}, {@code row + stride}, {@code row + 2·stride} and {@code row + 3·stride} (those
     * below {@code rows}) of an F32 matrix whose rows are {@code rowBytes} apart, into {@code out} at the same indices:
     * four streams of weights at once, each row summed exactly as {@link #f32} sums it (the same two accumulators and
     * tails), so the results are its to the bit. From DRAM the four streams keep more misses in flight than one (the
     * hardware prefetchers stop at every 4 KiB page): 2048x768 cycling through 100 MB, one thread, p50 542–589 µs
     * against 905–977 for one row after the other (10.7–11.6 against 6.4–6.9 GB/s).
     */
    static void f32Streams(MemorySegment w, long rowBytes, float[] x, int n, float[] out, int row, int stride, int rows) {
        int r1 = MatmulTask.streamIndex(row, 1, stride, rows);
        int r2 = MatmulTask.streamIndex(row, 2, stride, rows);
        int r3 = MatmulTask.streamIndex(row, 3, stride, rows);
        long o0 = row * rowBytes;
        long o1 = r1 * rowBytes;
        long o2 = r2 * rowBytes;
        long o3 = r3 * rowBytes;
        FloatVector a0 = FloatVector.zero(F);
        FloatVector b0 = a0;
        FloatVector a1 = a0;
        FloatVector b1 = a0;
        FloatVector a2 = a0;
        FloatVector b2 = a0;
        FloatVector a3 = a0;
        FloatVector b3 = a0;
        int c = 0;
        for (int bound = n - n % (2 * L); c < bound; c += 2 * L) {
            long o = 4L * c;
            FloatVector x0 = FloatVector.fromArray(F, x, c);
            FloatVector x1 = FloatVector.fromArray(F, x, c + L);
            a0 = FloatVector.fromMemorySegment(F, w, o0 + o, LE).fma(x0, a0);
            b0 = FloatVector.fromMemorySegment(F, w, o0 + o + 4L * L, LE).fma(x1, b0);
            a1 = FloatVector.fromMemorySegment(F, w, o1 + o, LE).fma(x0, a1);
            b1 = FloatVector.fromMemorySegment(F, w, o1 + o + 4L * L, LE).fma(x1, b1);
            a2 = FloatVector.fromMemorySegment(F, w, o2 + o, LE).fma(x0, a2);
            b2 = FloatVector.fromMemorySegment(F, w, o2 + o + 4L * L, LE).fma(x1, b2);
            a3 = FloatVector.fromMemorySegment(F, w, o3 + o, LE).fma(x0, a3);
            b3 = FloatVector.fromMemorySegment(F, w, o3 + o + 4L * L, LE).fma(x1, b3);
        }
        for (int bound = F.loopBound(n); c < bound; c += L) {
            long o = 4L * c;
            FloatVector x0 = FloatVector.fromArray(F, x, c);
            a0 = FloatVector.fromMemorySegment(F, w, o0 + o, LE).fma(x0, a0);
            a1 = FloatVector.fromMemorySegment(F, w, o1 + o, LE).fma(x0, a1);
            a2 = FloatVector.fromMemorySegment(F, w, o2 + o, LE).fma(x0, a2);
            a3 = FloatVector.fromMemorySegment(F, w, o3 + o, LE).fma(x0, a3);
        }
        float s0 = a0.add(b0).reduceLanes(VectorOperators.ADD);
        float s1 = a1.add(b1).reduceLanes(VectorOperators.ADD);
        float s2 = a2.add(b2).reduceLanes(VectorOperators.ADD);
        float s3 = a3.add(b3).reduceLanes(VectorOperators.ADD);
        for (; c < n; c++) {
            float xc = x[c];
            s0 += w.get(LittleEndian.FLOAT, o0 + 4L * c) * xc;
            s1 += w.get(LittleEndian.FLOAT, o1 + 4L * c) * xc;
            s2 += w.get(LittleEndian.FLOAT, o2 + 4L * c) * xc;
            s3 += w.get(LittleEndian.FLOAT, o3 + 4L * c) * xc;
        }
        out[row] = s0;
        if (r1 != row) {
            out[r1] = s1;
        }
        if (r2 != row) {
            out[r2] = s2;
        }
        if (r3 != row) {
            out[r3] = s3;
        }
    }

    /** Whether {@link #q8_0}, {@link #q4_0} and {@link KQuantDots#q4_K} fit this machine's vectors. */
    static final boolean SIXTEEN_LANES = L == 16;

    /** Q8_0 row of {@code blocks} blocks from byte {@code off}: {@code Σ_blocks d · (qs · x)}; 16 lanes. */
    static float q8_0(MemorySegment w, long off, float[] x, int xo, int blocks) {
        FloatVector acc = FloatVector.zero(F);
        for (int i = 0; i < blocks; i++) {
            long base = off + (long) i * Q8_0Codec.BLOCK_BYTES;
            long qs = base + Q8_0Codec.QS_OFFSET;
            int xi = xo + i * Q8_0Codec.BLOCK_SIZE;
            FloatVector part = ((FloatVector) ByteVector.fromMemorySegment(B, w, qs, LE)
                    .convertShape(VectorOperators.B2F, F, 0)).mul(FloatVector.fromArray(F, x, xi));
            part = ((FloatVector) ByteVector.fromMemorySegment(B, w, qs + 16, LE)
                    .convertShape(VectorOperators.B2F, F, 0)).fma(FloatVector.fromArray(F, x, xi + 16), part);
            acc = part.fma(FloatVector.broadcast(F, Float.float16ToFloat(w.get(LittleEndian.SHORT, base))), acc);
        }
        return acc.reduceLanes(VectorOperators.ADD);
    }

    /**
     * {@link #q8_0} of one row against four activation rows at once, at {@code x[x0..]} to {@code x[x3..]}: each
     * block is converted and scaled once, then multiplies all four, so the row is read once for the four.
     * Writes the four sums to {@code out[o0]}, {@code out[o0 + stride]}, {@code out[o0 + 2·stride]},
     * {@code out[o0 + 3·stride]}.
     */
    static void q8_0x4(MemorySegment w, long off, float[] x, int x0, int cols, int blocks, float[] out, int o0,
                       int stride) {
        FloatVector a0 = FloatVector.zero(F), a1 = a0, a2 = a0, a3 = a0;
        int x1 = x0 + cols, x2 = x1 + cols, x3 = x2 + cols;
        for (int i = 0; i < blocks; i++) {
            long base = off + (long) i * Q8_0Codec.BLOCK_BYTES;
            long qs = base + Q8_0Codec.QS_OFFSET;
            int xi = i * Q8_0Codec.BLOCK_SIZE;
            float d = Float.float16ToFloat(w.get(LittleEndian.SHORT, base));
            FloatVector lo = ((FloatVector) ByteVector.fromMemorySegment(B, w, qs, LE)
                    .convertShape(VectorOperators.B2F, F, 0)).mul(d);
            FloatVector hi = ((FloatVector) ByteVector.fromMemorySegment(B, w, qs + 16, LE)
                    .convertShape(VectorOperators.B2F, F, 0)).mul(d);
            a0 = hi.fma(FloatVector.fromArray(F, x, x0 + xi + 16), lo.fma(FloatVector.fromArray(F, x, x0 + xi), a0));
            a1 = hi.fma(FloatVector.fromArray(F, x, x1 + xi + 16), lo.fma(FloatVector.fromArray(F, x, x1 + xi), a1));
            a2 = hi.fma(FloatVector.fromArray(F, x, x2 + xi + 16), lo.fma(FloatVector.fromArray(F, x, x2 + xi), a2));
            a3 = hi.fma(FloatVector.fromArray(F, x, x3 + xi + 16), lo.fma(FloatVector.fromArray(F, x, x3 + xi), a3));
        }
        out[o0] = a0.reduceLanes(VectorOperators.ADD);
        out[o0 + stride] = a1.reduceLanes(VectorOperators.ADD);
        out[o0 + 2 * stride] = a2.reduceLanes(VectorOperators.ADD);
        out[o0 + 3 * stride] = a3.reduceLanes(VectorOperators.ADD);
    }

    /**
     * Q4_0 row of {@code blocks} blocks from byte {@code off}: {@code Σ_blocks d · ((nibbles − 8) · x)};
     * 16 lanes. The 16 packed bytes are zero-extended to int lanes once, so the low nibble is one
     * mask and the high nibble one shift (x86 has no byte shifts).
     */
    static float q4_0(MemorySegment w, long off, float[] x, int xo, int blocks) {
        FloatVector acc = FloatVector.zero(F);
        for (int i = 0; i < blocks; i++) {
            long base = off + (long) i * Q4_0Codec.BLOCK_BYTES;
            int xi = xo + i * Q4_0Codec.BLOCK_SIZE;
            IntVector packed = (IntVector) ByteVector.fromMemorySegment(B, w, base + Q4_0Codec.QS_OFFSET, LE)
                    .convertShape(VectorOperators.ZERO_EXTEND_B2I, I, 0);
            FloatVector part = ((FloatVector) packed.and(0x0F).sub(8).convert(VectorOperators.I2F, 0))
                    .mul(FloatVector.fromArray(F, x, xi));
            part = ((FloatVector) packed.lanewise(VectorOperators.LSHR, 4).sub(8).convert(VectorOperators.I2F, 0))
                    .fma(FloatVector.fromArray(F, x, xi + 16), part);
            acc = part.fma(FloatVector.broadcast(F, Float.float16ToFloat(w.get(LittleEndian.SHORT, base))), acc);
        }
        return acc.reduceLanes(VectorOperators.ADD);
    }

    /** {@link #q8_0} for any {@link Lanes#L}. */
    static float q8_0AnyWidth(MemorySegment w, long off, float[] x, int xo, int blocks) {
        FloatVector acc0 = FloatVector.zero(F);
        FloatVector acc1 = FloatVector.zero(F);
        int i = 0;
        for (; i + 1 < blocks; i += 2) {
            long base = off + (long) i * Q8_0Codec.BLOCK_BYTES;
            acc0 = q8_0Block(w, base, x, xo + i * Q8_0Codec.BLOCK_SIZE, acc0);
            acc1 = q8_0Block(w, base + Q8_0Codec.BLOCK_BYTES, x, xo + (i + 1) * Q8_0Codec.BLOCK_SIZE, acc1);
        }
        if (i < blocks) {
            acc0 = q8_0Block(w, off + (long) i * Q8_0Codec.BLOCK_BYTES, x, xo + i * Q8_0Codec.BLOCK_SIZE, acc0);
        }
        return acc0.add(acc1).reduceLanes(VectorOperators.ADD);
    }

    private static FloatVector q8_0Block(MemorySegment w, long base, float[] x, int xi, FloatVector acc) {
        FloatVector part = FloatVector.zero(F);
        for (int j = 0; j < Q8_0Codec.BLOCK_SIZE; j += L) {
            FloatVector q = (FloatVector) ByteVector.fromMemorySegment(B, w, base + Q8_0Codec.QS_OFFSET + j, LE)
                    .convertShape(VectorOperators.B2F, F, 0);
            part = q.fma(FloatVector.fromArray(F, x, xi + j), part);
        }
        return part.fma(FloatVector.broadcast(F, Float.float16ToFloat(w.get(LittleEndian.SHORT, base))), acc);
    }

    /** {@link #q4_0} for any {@link Lanes#L}. */
    static float q4_0AnyWidth(MemorySegment w, long off, float[] x, int xo, int blocks) {
        FloatVector acc0 = FloatVector.zero(F);
        FloatVector acc1 = FloatVector.zero(F);
        int i = 0;
        for (; i + 1 < blocks; i += 2) {
            long base = off + (long) i * Q4_0Codec.BLOCK_BYTES;
            acc0 = q4_0Block(w, base, x, xo + i * Q4_0Codec.BLOCK_SIZE, acc0);
            acc1 = q4_0Block(w, base + Q4_0Codec.BLOCK_BYTES, x, xo + (i + 1) * Q4_0Codec.BLOCK_SIZE, acc1);
        }
        if (i < blocks) {
            acc0 = q4_0Block(w, off + (long) i * Q4_0Codec.BLOCK_BYTES, x, xo + i * Q4_0Codec.BLOCK_SIZE, acc0);
        }
        return acc0.add(acc1).reduceLanes(VectorOperators.ADD);
    }

    /**
     * Widens the 16 packed bytes to int lanes once (sign extension is harmless: both nibbles are
     * masked), so the nibble split is an int shift rather than an emulated byte shift.
     */
    private static FloatVector q4_0Block(MemorySegment w, long base, float[] x, int xi, FloatVector acc) {
        FloatVector part = FloatVector.zero(F);
        for (int j = 0; j < Q4_0Codec.BLOCK_SIZE / 2; j += L) {
            IntVector packed = (IntVector) ByteVector.fromMemorySegment(B, w, base + Q4_0Codec.QS_OFFSET + j, LE)
                    .convertShape(VectorOperators.B2I, I, 0);
            FloatVector lo = (FloatVector) packed.and(0x0F).sub(8).convert(VectorOperators.I2F, 0);
            FloatVector hi = (FloatVector) packed.lanewise(VectorOperators.ASHR, 4).and(0x0F).sub(8)
                    .convert(VectorOperators.I2F, 0);
            part = lo.fma(FloatVector.fromArray(F, x, xi + j), part);
            part = hi.fma(FloatVector.fromArray(F, x, xi + Q4_0Codec.BLOCK_SIZE / 2 + j), part);
        }
        return part.fma(FloatVector.broadcast(F, Float.float16ToFloat(w.get(LittleEndian.SHORT, base))), acc);
    }
}
