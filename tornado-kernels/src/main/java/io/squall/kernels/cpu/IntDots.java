package io.squall.kernels.cpu;

import io.squall.kernels.GgmlType;
import io.squall.kernels.format.IQ4_NLCodec;
import io.squall.kernels.format.IQ4_XSCodec;
import io.squall.kernels.format.LittleEndian;
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
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Integer dot products of one weight row, read in place, with one activation row rounded to 8 bits
 * ({@link QuantizedActivations}): the decode path of Q8_0, Q4_0, IQ4_NL, the K-quants Q2_K to Q6_K and IQ4_XS. Per 16 elements, the
 * weight levels widen to 16-bit lanes ({@code vpmovzxbw}/{@code vpmovsxbw}), multiply the activation
 * levels exactly ({@code vpmullw}: |product| ≤ 128·127; Q4_0's and the K-quants' levels are small enough
 * to add two products per lane first, Q8_0's are not), then adjacent
 * pairs are summed into 32-bit lanes with a shift, an add and an arithmetic shift (what
 * {@code vpmaddwd} does in one instruction, which the Vector API of JDK 25 does not expose), converted
 * to float once and scaled by the block's float factor. Unsigned levels (Q4_0's nibbles, Q6_K's six
 * bits) stay unsigned and their offset comes off through the activation block sums, as llama.cpp
 * does for Q4_K's mins.
 *
 * <p>The vectors are 256 bits wide (16 shorts, 8 ints, 8 floats), except where the machine has 512-bit vectors
 * ({@link #WIDE}): there a Q4_K or Q5_K sub-block and a Q2_K, Q3_K or Q6_K level of 32 fill one 512-bit short vector,
 * and so do two IQ4_XS sub-blocks (Q8_0's four-row dot and IQ4_NL stay at 256; Q4_0 takes the float dot
 * over its rounded activations there, see {@link #preferred}). The
 * results equal float64 {@code Σ w·x̃} (x̃ the rounded activations) up to float32 rounding of the
 * per-block partial sums. Stateless and thread-safe.
 *
 * <p>The 256-bit K-quant and IQ4_XS dots walk a super-block's sub-blocks in nested loops of two trips. C2 unrolls a
 * loop fully when its trip count is at most three, whatever its size; a loop of four to sixteen trips over a body this
 * large stayed a loop, split anew for every super-block into pre-, main and post-loops for its range checks (a hundred
 * instructions of bounds arithmetic and spills). Written out in the bytecode instead, the method outgrows C2's inlining
 * node budget (its helpers stay calls, their vectors boxed: 2.3× slower). The same operations in the same order, so
 * the results are bit-identical; 2048x768 at batch 1, one thread, best of 2–3 s: Q4_K 207–215 against 232–236 µs, Q5_K
 * 269–286 against 300–313, Q6_K 252–265 against 268–273, Q3_K 505–631 against 593–689, Q2_K 502–645 against 611–946,
 * IQ4_XS 201–215 against 219–259. The 512-bit shapes keep their loops: not measured on an AVX-512 machine since.
 */
final class IntDots {

    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final VectorSpecies<Byte> B8 = ByteVector.SPECIES_64;
    private static final VectorSpecies<Byte> B16 = ByteVector.SPECIES_128;
    private static final VectorSpecies<Short> S16 = ShortVector.SPECIES_256;
    private static final VectorSpecies<Float> F8 = FloatVector.SPECIES_256;
    private static final VectorSpecies<Integer> I8 = IntVector.SPECIES_256;
    /**
     * Whether this machine has 512-bit vectors: then Q2_K to Q6_K and IQ4_XS run 32 levels per short vector (two
     * IQ4_XS sub-blocks' halves, a K-quant sub-block or level), about half the instructions per weight of the 256-bit
     * shapes. Where Q4_K and Q6_K have their interleaved copies ({@link InterleavedRows}), one activation row reads
     * those instead.
     */
    static final boolean WIDE = ShortVector.SPECIES_PREFERRED.vectorBitSize() >= 512;

    /**
     * Whether a one-row matmul of {@code type} takes these dots rather than the float dot over the same rounded
     * activations: every format that has one here, but Q4_0 with 512-bit vectors, where the float dot is faster
     * (MatmulBenchmark at batch 1: 61 against 71–74 µs on 2048x768, one thread; 495–501 against 568–630 on
     * 32000x768, two).
     */
    static boolean preferred(GgmlType type) {
        return switch (type) {
            case Q8_0, Q4_K, Q5_K, Q3_K, Q2_K, IQ4_NL, IQ4_XS, Q6_K -> true;
            case Q4_0 -> !WIDE;
            default -> false;
        };
    }
    private static final VectorSpecies<Byte> B32 = ByteVector.SPECIES_256;
    private static final VectorSpecies<Short> S32 = ShortVector.SPECIES_512;
    private static final VectorSpecies<Float> F16 = FloatVector.SPECIES_512;
    private static final VectorSpecies<Integer> I16 = IntVector.SPECIES_512;
    /** Float lanes 8..15: a pair of 32-element blocks' int sums sit in lanes 0..7 (first block) and 8..15 (second). */
    private static final VectorMask<Float> SECOND_BLOCK = VectorMask.fromLong(FloatVector.SPECIES_512, 0xFF00L);
    /** Byte lane {@code j} of 16 takes byte {@code j / 2}: a long's eight bytes, each over two lanes. */
    private static final VectorShuffle<Byte> EACH_BYTE_TWICE = VectorShuffle.fromOp(ByteVector.SPECIES_128, j -> j / 2);
    /** The IQ4 grid in both 128-bit halves of 32 byte lanes (indexes stay below 16). */
    private static final ByteVector GRID32 = ByteVector.fromArray(B32, gridBytes(32), 0);
    /** Int lane {@code j} (0..7, repeated for 8..15): the shift that brings sub-block {@code j}'s 4-bit field of a packed int down. */
    private static final IntVector NIBBLE_SHIFTS = IntVector.fromArray(I16, new int[] {0, 4, 8, 12, 16, 20, 24, 28, 0, 4, 8, 12, 16, 20, 24, 28}, 0);
    /** The same for 2-bit fields. */
    private static final IntVector CRUMB_SHIFTS = IntVector.fromArray(I16, new int[] {0, 2, 4, 6, 8, 10, 12, 14, 0, 2, 4, 6, 8, 10, 12, 14}, 0);
    /** Lane {@code j} of 16 ints holds {@code j / 8}: picks a group's scale for pairs of lanes 0..15, the next group's for 16..31. */
    private static final IntVector HALF_INDEX = IntVector.fromArray(I16, new int[] {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1}, 0);
    private static final ValueLayout.OfInt LE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(LE);
    private static final ValueLayout.OfLong LE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(LE);

    /**
     * Whether this machine's vectors hold 256 bits (AVX2 and up); narrower hardware would run these shapes
     * without intrinsics, so there the quantized formats keep float activations.
     */
    static final boolean SUPPORTED = ShortVector.SPECIES_PREFERRED.vectorBitSize() >= 256;

    private IntDots() {
    }

    /** 16 bytes from {@code off}, zero-extended to 16-bit lanes. */
    private static ShortVector unsigned16(MemorySegment w, long off) {
        return (ShortVector) ByteVector.fromMemorySegment(B16, w, off, LE)
                .convertShape(VectorOperators.ZERO_EXTEND_B2S, S16, 0);
    }

    /** 32 bytes from {@code off}, zero-extended to 16-bit lanes (512-bit vectors). */
    private static ShortVector unsigned32(MemorySegment w, long off) {
        return (ShortVector) ByteVector.fromMemorySegment(B32, w, off, LE)
                .convertShape(VectorOperators.ZERO_EXTEND_B2S, S32, 0);
    }

    /**
     * {@code v}'s 16-bit lanes shifted right by {@code bits} as 32-bit lanes: each lane's upper neighbour shifts into
     * its top {@code bits} bits, which every caller masks off. In {@link #q6_KWide} (not in {@link #k45Wide}, measured
     * both ways) 16-bit lane shifts made the kernel 1.6× slower on this AVX-512 machine (Zen 5).
     */
    private static ShortVector shiftRight(ShortVector v, int bits) {
        return v.reinterpretAsInts().lanewise(VectorOperators.LSHR, bits).reinterpretAsShorts();
    }

    /** As {@link #shiftRight}, left: for lanes below {@code 1 << (16 - bits)}, where nothing crosses into a neighbour. */
    private static ShortVector shiftLeft(ShortVector v, int bits) {
        return v.reinterpretAsInts().lanewise(VectorOperators.LSHL, bits).reinterpretAsShorts();
    }

    /** Adjacent 16-bit lanes summed into int lanes, half as many (exact while each pair's sum fits 16 bits). */
    private static IntVector pairInts(ShortVector products) {
        IntVector v = products.reinterpretAsInts();
        return v.add(v.lanewise(VectorOperators.LSHL, 16)).lanewise(VectorOperators.ASHR, 16);
    }

    /**
     * The products of 32 levels with {@code x[xi ..]} (512-bit vectors), paired into 16 int lanes and scaled as ints
     * by group {@code group} of {@code groupScales} (lanes 0..7, levels 0..15) and group {@code group + 1} (8..15).
     */
    private static IntVector scaledPairs(ShortVector levels, short[] x, int xi, IntVector groupScales, int group) {
        return pairInts(levels.mul(ShortVector.fromArray(S32, x, xi))).mul(HALF_INDEX.add(group).selectFrom(groupScales));
    }

    /** Adjacent 16-bit lanes summed into float lanes, half as many (exact while each pair's sum fits 16 bits). */
    private static FloatVector pairs(ShortVector products) {
        return (FloatVector) pairInts(products).convert(VectorOperators.I2F, 0);
    }

    /**
     * Q8_0 rows {@code row}, {@code row + stride}, {@code row + 2·stride} and {@code row + 3·stride} (those below
     * {@code rows}) of a matrix whose rows are {@code rowBytes} apart, with Q8_0 activations, into {@code out} at the
     * same indices: {@code Σ d_w·d_x·Σ q_w·q_x} over blocks. Four streams of weights at once, as {@link
     * FusedDots#f32Streams} reads F32, and each activation vector serves four rows; a row's blocks add into one
     * accumulator, each block's 32 products summed exactly into eight int lanes. 256-bit vectors, on 512-bit machines
     * as well: there a row at a time with whole blocks in 512-bit vectors was as fast in cache and 2.2× slower from
     * memory (2048x768, one thread, 48 copies cycled: 374–408 µs against 177–179; docs/BENCHMARKS.md).
     */
    static void q8_0Streams(MemorySegment w, long rowBytes, QuantizedActivations a, int blocks, float[] out, int row,
                            int stride, int rows) {
        short[] x = a.q;
        float[] xd = a.d;
        int r1 = MatmulTask.streamIndex(row, 1, stride, rows);
        int r2 = MatmulTask.streamIndex(row, 2, stride, rows);
        int r3 = MatmulTask.streamIndex(row, 3, stride, rows);
        long o0 = row * rowBytes;
        long o1 = r1 * rowBytes;
        long o2 = r2 * rowBytes;
        long o3 = r3 * rowBytes;
        FloatVector acc0 = FloatVector.zero(F8);
        FloatVector acc1 = acc0;
        FloatVector acc2 = acc0;
        FloatVector acc3 = acc0;
        for (int b = 0; b < blocks; b++) {
            // written out with the Vector API's own methods only: helpers of ours past C2's inlining budget would stay
            // calls on boxed vectors
            long at = (long) b * Q8_0Codec.BLOCK_BYTES;
            ShortVector x0 = ShortVector.fromArray(S16, x, b * Q8_0Codec.BLOCK_SIZE);
            ShortVector x1 = ShortVector.fromArray(S16, x, b * Q8_0Codec.BLOCK_SIZE + 16);
            float dx = xd[b];
            // two products a 16-bit lane (|q_w·q_x| ≤ 128·127, so two fit), then each lane widened on its own
            IntVector products;
            IntVector sum;
            products = ((ShortVector) ByteVector.fromMemorySegment(B16, w, o0 + at + Q8_0Codec.QS_OFFSET, LE)
                    .convertShape(VectorOperators.B2S, S16, 0)).mul(x0)
                    .add(((ShortVector) ByteVector.fromMemorySegment(B16, w, o0 + at + Q8_0Codec.QS_OFFSET + 16, LE)
                            .convertShape(VectorOperators.B2S, S16, 0)).mul(x1)).reinterpretAsInts();
            sum = products.lanewise(VectorOperators.LSHL, 16).lanewise(VectorOperators.ASHR, 16)
                    .add(products.lanewise(VectorOperators.ASHR, 16));
            acc0 = ((FloatVector) sum.convert(VectorOperators.I2F, 0)).fma(
                    FloatVector.broadcast(F8, Float.float16ToFloat(w.get(LittleEndian.SHORT, o0 + at)) * dx), acc0);
            products = ((ShortVector) ByteVector.fromMemorySegment(B16, w, o1 + at + Q8_0Codec.QS_OFFSET, LE)
                    .convertShape(VectorOperators.B2S, S16, 0)).mul(x0)
                    .add(((ShortVector) ByteVector.fromMemorySegment(B16, w, o1 + at + Q8_0Codec.QS_OFFSET + 16, LE)
                            .convertShape(VectorOperators.B2S, S16, 0)).mul(x1)).reinterpretAsInts();
            sum = products.lanewise(VectorOperators.LSHL, 16).lanewise(VectorOperators.ASHR, 16)
                    .add(products.lanewise(VectorOperators.ASHR, 16));
            acc1 = ((FloatVector) sum.convert(VectorOperators.I2F, 0)).fma(
                    FloatVector.broadcast(F8, Float.float16ToFloat(w.get(LittleEndian.SHORT, o1 + at)) * dx), acc1);
            products = ((ShortVector) ByteVector.fromMemorySegment(B16, w, o2 + at + Q8_0Codec.QS_OFFSET, LE)
                    .convertShape(VectorOperators.B2S, S16, 0)).mul(x0)
                    .add(((ShortVector) ByteVector.fromMemorySegment(B16, w, o2 + at + Q8_0Codec.QS_OFFSET + 16, LE)
                            .convertShape(VectorOperators.B2S, S16, 0)).mul(x1)).reinterpretAsInts();
            sum = products.lanewise(VectorOperators.LSHL, 16).lanewise(VectorOperators.ASHR, 16)
                    .add(products.lanewise(VectorOperators.ASHR, 16));
            acc2 = ((FloatVector) sum.convert(VectorOperators.I2F, 0)).fma(
                    FloatVector.broadcast(F8, Float.float16ToFloat(w.get(LittleEndian.SHORT, o2 + at)) * dx), acc2);
            products = ((ShortVector) ByteVector.fromMemorySegment(B16, w, o3 + at + Q8_0Codec.QS_OFFSET, LE)
                    .convertShape(VectorOperators.B2S, S16, 0)).mul(x0)
                    .add(((ShortVector) ByteVector.fromMemorySegment(B16, w, o3 + at + Q8_0Codec.QS_OFFSET + 16, LE)
                            .convertShape(VectorOperators.B2S, S16, 0)).mul(x1)).reinterpretAsInts();
            sum = products.lanewise(VectorOperators.LSHL, 16).lanewise(VectorOperators.ASHR, 16)
                    .add(products.lanewise(VectorOperators.ASHR, 16));
            acc3 = ((FloatVector) sum.convert(VectorOperators.I2F, 0)).fma(
                    FloatVector.broadcast(F8, Float.float16ToFloat(w.get(LittleEndian.SHORT, o3 + at)) * dx), acc3);
        }
        out[row] = acc0.reduceLanes(VectorOperators.ADD);
        if (r1 != row) {
            out[r1] = acc1.reduceLanes(VectorOperators.ADD);
        }
        if (r2 != row) {
            out[r2] = acc2.reduceLanes(VectorOperators.ADD);
        }
        if (r3 != row) {
            out[r3] = acc3.reduceLanes(VectorOperators.ADD);
        }
    }

    /**
     * Q4_0 row with Q8_0 activations: {@code Σ d_w·d_x·Σ (n − 8)·q_x} over blocks, {@code n} the unsigned nibbles,
     * offset by 8 in the 16-bit lanes before the multiply (two subtractions a block, where taking {@code 8·d_x·Σ q_x}
     * off afterwards cost a second f16 conversion, two scalar products and a loop-carried scalar sum). A block per 16
     * short lanes: taken with 256-bit vectors only, as with 512-bit ones Q4_0 keeps float activations
     * ({@link QuantizedActivations.Scheme#of}).
     */
    static float q4_0(MemorySegment w, long off, QuantizedActivations a, int xo, int blocks) {
        short[] x = a.q;
        float[] xd = a.d;
        int xb = xo / Q4_0Codec.BLOCK_SIZE;
        FloatVector acc0 = FloatVector.zero(F8);
        FloatVector acc1 = acc0;
        int i = 0;
        for (; i + 1 < blocks; i += 2) {
            long base = off + (long) i * Q4_0Codec.BLOCK_BYTES;
            long next = base + Q4_0Codec.BLOCK_BYTES;
            int xi = xo + i * Q4_0Codec.BLOCK_SIZE;
            acc0 = q4Block(w, base, x, xi).fma(FloatVector.broadcast(F8, LittleEndian.half(w, base) * xd[xb + i]), acc0);
            acc1 = q4Block(w, next, x, xi + 32)
                    .fma(FloatVector.broadcast(F8, LittleEndian.half(w, next) * xd[xb + i + 1]), acc1);
        }
        if (i < blocks) {
            long base = off + (long) i * Q4_0Codec.BLOCK_BYTES;
            int xi = xo + i * Q4_0Codec.BLOCK_SIZE;
            acc0 = q4Block(w, base, x, xi).fma(FloatVector.broadcast(F8, LittleEndian.half(w, base) * xd[xb + i]), acc0);
        }
        return acc0.add(acc1).reduceLanes(VectorOperators.ADD);
    }

    /**
     * {@code Σ (n − 8)·q_x} of the Q4_0 block at {@code base} in 8 float lanes (each |pair| ≤ 2·2·8·127). The scale
     * and its multiply-add stay at the call sites: moved in here, they made the dot ~5% slower (AVX2, 2048x768, one
     * thread: 150–160 against 142–151 µs best).
     */
    private static FloatVector q4Block(MemorySegment w, long base, short[] x, int xi) {
        ShortVector n = unsigned16(w, base + Q4_0Codec.QS_OFFSET);
        ShortVector low = n.and((short) 0x0F).sub((short) 8);
        ShortVector high = n.lanewise(VectorOperators.LSHR, 4).sub((short) 8);
        return pairs(low.mul(ShortVector.fromArray(S16, x, xi)).add(high.mul(ShortVector.fromArray(S16, x, xi + 16))));
    }

    /**
     * Q4_K row of {@code blocks} super-blocks with Q8_K activations:
     * {@code Σ d·d_x·Σ_s scale_s·(n_s · q_x) − dmin·d_x·Σ_s min_s·Σ q_x(s)}. The twelve packed scale bytes
     * unpack into a long of eight scales and one of eight mins ({@link KQuantDots#scales}).
     */
    static float q4_K(MemorySegment w, long off, QuantizedActivations a, int xo, int blocks) {
        if (WIDE) {
            return k45Wide(w, off, a, xo, blocks, false);
        }
        short[] x = a.q;
        int[] subSums = a.subBlockSums;
        int xb = xo / Q4_KCodec.BLOCK_SIZE;
        FloatVector acc0 = FloatVector.zero(F8);
        FloatVector acc1 = acc0;
        float mins = 0f;
        for (int i = 0; i < blocks; i++) {
            long base = off + (long) i * Q4_KCodec.BLOCK_BYTES;
            float dx = a.d[xb + i];
            float d = LittleEndian.half(w, base) * dx;
            float dmin = LittleEndian.half(w, base + Q4_KCodec.DMIN_OFFSET) * dx;
            long scales = KQuantDots.scales(w, base + Q4_KCodec.SCALES_OFFSET);
            long minLevels = KQuantDots.mins(w, base + Q4_KCodec.SCALES_OFFSET);
            int xe = xo + i * Q4_KCodec.BLOCK_SIZE;
            int g = (xb + i) * 8;
            int minSum = 0;
            // two loops of two, not one of four (see the class comment)
            for (int half = 0; half < 2; half++)
            for (int step = 0; step < 2; step++, xe += 64, g += 2) {
                int pair = 2 * half + step;
                long qs = base + Q4_KCodec.QS_OFFSET + 32L * pair;
                ShortVector na = unsigned16(w, qs);
                ShortVector nb = unsigned16(w, qs + 16);
                ShortVector lo = na.and((short) 0x0F).mul(ShortVector.fromArray(S16, x, xe))
                        .add(nb.and((short) 0x0F).mul(ShortVector.fromArray(S16, x, xe + 16)));
                ShortVector hi = na.lanewise(VectorOperators.LSHR, 4).mul(ShortVector.fromArray(S16, x, xe + 32))
                        .add(nb.lanewise(VectorOperators.LSHR, 4).mul(ShortVector.fromArray(S16, x, xe + 48)));
                acc0 = pairs(lo).fma(FloatVector.broadcast(F8, d * (int) ((scales >>> (16 * pair)) & 0xFF)), acc0);
                acc1 = pairs(hi).fma(FloatVector.broadcast(F8, d * (int) ((scales >>> (16 * pair + 8)) & 0xFF)), acc1);
                minSum += (int) ((minLevels >>> (16 * pair)) & 0xFF) * subSums[g]
                        + (int) ((minLevels >>> (16 * pair + 8)) & 0xFF) * subSums[g + 1];
            }
            mins += dmin * minSum;
        }
        return acc0.add(acc1).reduceLanes(VectorOperators.ADD) - mins;
    }

    /**
     * {@link #q4_K} for Q5_K: the same header, scales, mins and nibbles, plus bit {@code s} of {@code qh[l]} as 16
     * for lane {@code l} of sub-block {@code s}; levels up to 31, so two products still share a 16-bit lane.
     */
    static float q5_K(MemorySegment w, long off, QuantizedActivations a, int xo, int blocks) {
        if (WIDE) {
            return k45Wide(w, off, a, xo, blocks, true);
        }
        short[] x = a.q;
        int[] subSums = a.subBlockSums;
        int xb = xo / Q4_KCodec.BLOCK_SIZE;
        FloatVector acc = FloatVector.zero(F8);
        float mins = 0f;
        for (int i = 0; i < blocks; i++) {
            long base = off + (long) i * Q5_KCodec.BLOCK_BYTES;
            float dx = a.d[xb + i];
            float d = LittleEndian.half(w, base) * dx;
            float dmin = LittleEndian.half(w, base + Q4_KCodec.DMIN_OFFSET) * dx;
            long scales = KQuantDots.scales(w, base + Q4_KCodec.SCALES_OFFSET);
            long minLevels = KQuantDots.mins(w, base + Q4_KCodec.SCALES_OFFSET);
            // bit s moved up to bit 4 + s: a shift right by s then leaves it at 16
            ShortVector highA = unsigned16(w, base + Q5_KCodec.QH_OFFSET).lanewise(VectorOperators.LSHL, 4);
            ShortVector highB = unsigned16(w, base + Q5_KCodec.QH_OFFSET + 16).lanewise(VectorOperators.LSHL, 4);
            int xe = xo + i * Q4_KCodec.BLOCK_SIZE;
            int g = (xb + i) * 8;
            int minSum = 0;
            // sub-block s = 2·pair + h: nibble h of the 32 bytes qs[32·pair ..], fifth bit s of qh; the loops stay
            // loops in the bytecode (C2 unrolls them) so that the helpers inline and no vector is boxed, three
            // loops of two rather than one of eight (see the class comment)
            for (int half = 0; half < 2; half++)
            for (int step = 0; step < 2; step++)
            for (int h = 0; h < 2; h++) {
                int pair = 2 * half + step;
                int sub = 2 * pair + h;
                long qs = base + Q5_KCodec.QS_OFFSET + 32L * pair;
                int xs = xe + 32 * sub;
                ShortVector p = unsigned16(w, qs).lanewise(VectorOperators.LSHR, 4 * h).and((short) 0x0F)
                        .or(highA.lanewise(VectorOperators.LSHR, sub).and((short) 0x10)).mul(ShortVector.fromArray(S16, x, xs))
                        .add(unsigned16(w, qs + 16).lanewise(VectorOperators.LSHR, 4 * h).and((short) 0x0F)
                                .or(highB.lanewise(VectorOperators.LSHR, sub).and((short) 0x10))
                                .mul(ShortVector.fromArray(S16, x, xs + 16)));
                acc = pairs(p).fma(FloatVector.broadcast(F8, d * (int) ((scales >>> (8 * sub)) & 0xFF)), acc);
                minSum += (int) ((minLevels >>> (8 * sub)) & 0xFF) * subSums[g + sub];
            }
            mins += dmin * minSum;
        }
        return acc.reduceLanes(VectorOperators.ADD) - mins;
    }

    /**
     * {@link #q4_K} and ({@code five}) {@link #q5_K} with 512-bit vectors: sub-block {@code s} is nibble {@code s&1}
     * of the 32 bytes {@code qs[32·(s/2) ..]} (plus, for Q5_K, bit {@code s} of {@code qh[l]} as 16), so its 32
     * levels are one short vector, one multiply and one pairing. Its 6-bit scale is applied to the int pairs (at most
     * 2·31·127·63 a lane), the super-block's eight sub-blocks add up as ints and convert once; the mins come off as
     * one vector product of the eight mins (each over two lanes) with the activations' sixteen sums, accumulated
     * across super-blocks. Per-sub-block float scales and a scalar sum of the mins took half the instructions.
     */
    private static float k45Wide(MemorySegment w, long off, QuantizedActivations a, int xo, int blocks, boolean five) {
        short[] x = a.q;
        float[] sums = a.sums;
        int xb = xo / Q4_KCodec.BLOCK_SIZE;
        int blockBytes = five ? Q5_KCodec.BLOCK_BYTES : Q4_KCodec.BLOCK_BYTES;
        int qsOffset = five ? Q5_KCodec.QS_OFFSET : Q4_KCodec.QS_OFFSET;
        // Q4_K masks its (unread) fifth bits off: no vector assigned under a branch (C2 boxes)
        short fifth = (short) (five ? 0x10 : 0);
        FloatVector acc = FloatVector.zero(F16);
        FloatVector minAcc = acc;
        for (int i = 0; i < blocks; i++) {
            long base = off + (long) i * blockBytes;
            float dx = a.d[xb + i];
            long scales = KQuantDots.scales(w, base + Q4_KCodec.SCALES_OFFSET);
            // bit s moved up to bit 4 + s: a shift right by s then leaves it at 16 (Q4_K reads qs bytes here, masked off)
            ShortVector high = unsigned32(w, base + Q5_KCodec.QH_OFFSET).lanewise(VectorOperators.LSHL, 4);
            int xe = xo + i * Q4_KCodec.BLOCK_SIZE;
            // one call site of k45Pair: two outgrew C2's inlining budget (its helpers stayed calls, their vectors boxed)
            IntVector sum = IntVector.zero(I16);
            for (int pair = 0; pair < 4; pair++) {
                sum = sum.add(k45Pair(w, base + qsOffset + 32L * pair, high, fifth, x, xe + 64 * pair, scales, 2 * pair));
            }
            acc = ((FloatVector) sum.convert(VectorOperators.I2F, 0))
                    .fma(FloatVector.broadcast(F16, LittleEndian.half(w, base) * dx), acc);
            FloatVector minLanes = (FloatVector) LongVector.broadcast(LongVector.SPECIES_128,
                            KQuantDots.mins(w, base + Q4_KCodec.SCALES_OFFSET)).reinterpretAsBytes().rearrange(EACH_BYTE_TWICE)
                    .convertShape(VectorOperators.ZERO_EXTEND_B2I, I16, 0).convert(VectorOperators.I2F, 0);
            minAcc = minLanes.mul(FloatVector.fromArray(F16, sums, (xb + i) * 16))
                    .fma(FloatVector.broadcast(F16, LittleEndian.half(w, base + Q4_KCodec.DMIN_OFFSET) * dx), minAcc);
        }
        return acc.sub(minAcc).reduceLanes(VectorOperators.ADD);
    }

    /**
     * Sub-blocks {@code s} and {@code s + 1} of a Q4_K/Q5_K super-block, from the 32 bytes at {@code qs}: their paired
     * products with the activations from {@code xe}, each times its scale (byte {@code s} of {@code scales}).
     */
    private static IntVector k45Pair(MemorySegment w, long qs, ShortVector high, short fifth, short[] x, int xe,
                                     long scales, int s) {
        ShortVector q = unsigned32(w, qs);
        ShortVector lo = q.and((short) 0x0F).or(high.lanewise(VectorOperators.LSHR, s).and(fifth));
        ShortVector hi = q.lanewise(VectorOperators.LSHR, 4).or(high.lanewise(VectorOperators.LSHR, s + 1).and(fifth));
        return pairInts(lo.mul(ShortVector.fromArray(S32, x, xe))).mul((int) ((scales >>> (8 * s)) & 0xFF))
                .add(pairInts(hi.mul(ShortVector.fromArray(S32, x, xe + 32))).mul((int) ((scales >>> (8 * s + 8)) & 0xFF)));
    }

    /**
     * Q3_K row of {@code blocks} super-blocks with Q8_K activations: {@code Σ d·d_x·Σ_g (scale_g − 32)·(q_g · q_x)}
     * over groups {@code g} of 16 (one short vector each), {@code q = low2 + 4·hbit − 4} in −4..3 (layout as in
     * {@link KQuantDots#q3_K}).
     */
    static float q3_K(MemorySegment w, long off, QuantizedActivations a, int xo, int blocks) {
        return k23(w, off, a, xo, blocks, true);
    }

    /**
     * Q2_K row with Q8_K activations: {@code Σ d·d_x·Σ_g scale_g·(q_g · q_x) − dmin·d_x·Σ_g min_g·Σ q_x(g)}, the
     * levels {@code q} 0..3 stored as Q3_K's low two bits, the 4-bit scale and min of group {@code g} in byte
     * {@code g} ({@link Q2_KCodec}).
     */
    static float q2_K(MemorySegment w, long off, QuantizedActivations a, int xo, int blocks) {
        return k23(w, off, a, xo, blocks, false);
    }

    /**
     * The Q2_K/Q3_K dot ({@code q3}: Q3_K's third bits, 6-bit signed scales and no mins). A product times its
     * scale is at most 4·127·32 = 16256 (Q2_K: 3·127·15), so the scale is applied in the 16-bit lanes, each
     * group's pairs add into one int accumulator per super-block, and that is converted and scaled once.
     */
    private static float k23(MemorySegment w, long off, QuantizedActivations a, int xo, int blocks, boolean q3) {
        if (WIDE) {
            return k23Wide(w, off, a, xo, blocks, q3);
        }
        short[] x = a.q;
        float[] sums = a.sums;
        int xb = xo / Q3_KCodec.BLOCK_SIZE;
        int blockBytes = q3 ? Q3_KCodec.BLOCK_BYTES : Q2_KCodec.BLOCK_BYTES;
        int qsOffset = q3 ? Q3_KCodec.QS_OFFSET : Q2_KCodec.QS_OFFSET;
        int bias = q3 ? 32 : 0;
        // Q2_K reads its scale bytes as third bits and masks them off: no vector assigned under a branch (C2 boxes)
        short third = (short) (q3 ? 4 : 0);
        FloatVector acc = FloatVector.zero(F8);
        float mins = 0f;
        for (int i = 0; i < blocks; i++) {
            long base = off + (long) i * blockBytes;
            float dx = a.d[xb + i];
            float d = LittleEndian.half(w, base + (q3 ? Q3_KCodec.D_OFFSET : Q2_KCodec.D_OFFSET)) * dx;
            int g0 = (xb + i) * 16;
            if (!q3) {
                int minSum = 0;
                for (int g = 0; g < 16; g++) {
                    minSum += (w.get(ValueLayout.JAVA_BYTE, base + g) >> 4 & 0x0F) * (int) sums[g0 + g];
                }
                mins += LittleEndian.half(w, base + Q2_KCodec.DMIN_OFFSET) * dx * minSum;
            }
            IntVector block = IntVector.zero(I8);
            // group g = 8n + 2k + j: lanes 16j.. of qs[32n ..] shifted by 2k, third bit 4n + k of hmask[16j ..]; the
            // loops stay loops in the bytecode (C2 unrolls them) so that the helpers inline and no vector is boxed,
            // four loops of two rather than one of sixteen (see the class comment)
            for (int n = 0; n < 2; n++)
            for (int kHigh = 0; kHigh < 2; kHigh++)
            for (int kLow = 0; kLow < 2; kLow++)
            for (int j = 0; j < 2; j++) {
                int k = 2 * kHigh + kLow;
                int g = 8 * n + 2 * k + j;
                long sc = q3 ? KQuantDots.q3Scales(w, base + Q3_KCodec.SCALES_OFFSET, n)
                        : w.get(LE_LONG, base + 8L * n) & 0x0F0F0F0F0F0F0F0FL;
                short scale = (short) (((sc >>> (8 * (g & 7))) & 0xFF) - bias);
                // the hmask bits moved to bit 2 up front: bit 4n + k then lands there after a shift right by 4n + k
                ShortVector level = unsigned16(w, base + qsOffset + 32L * n + 16L * j).lanewise(VectorOperators.LSHR, 2 * k)
                        .and((short) 3)
                        .or(unsigned16(w, base + 16L * j).lanewise(VectorOperators.LSHL, 2)
                                .lanewise(VectorOperators.LSHR, 4 * n + k).and(third)).sub(third);
                block = block.add(pairInts(level.mul(ShortVector.fromArray(S16, x, xo + i * Q3_KCodec.BLOCK_SIZE + 16 * g))
                        .mul(scale)));
            }
            acc = ((FloatVector) block.convert(VectorOperators.I2F, 0)).fma(FloatVector.broadcast(F8, d), acc);
        }
        return acc.reduceLanes(VectorOperators.ADD) - mins;
    }

    /**
     * {@link #k23} with 512-bit vectors, laid out as {@link #q6_KWide}: level {@code k} of half {@code n} is the 32
     * bytes {@code qs[32n ..]} shifted by {@code 2k} (and, for Q3_K, bit {@code 4n + k} of {@code hmask[..32]}), one
     * short vector whose paired products take the scales of groups {@code 8n + 2k} and {@code 8n + 2k + 1} by one
     * permute of the super-block's 16; Q2_K's mins come off through one product with the activation sums.
     */
    private static float k23Wide(MemorySegment w, long off, QuantizedActivations a, int xo, int blocks, boolean q3) {
        short[] x = a.q;
        float[] sums = a.sums;
        int xb = xo / Q3_KCodec.BLOCK_SIZE;
        int blockBytes = q3 ? Q3_KCodec.BLOCK_BYTES : Q2_KCodec.BLOCK_BYTES;
        int qsOffset = q3 ? Q3_KCodec.QS_OFFSET : Q2_KCodec.QS_OFFSET;
        // Q2_K reads its scale bytes as third bits and masks them off: no vector assigned under a branch (C2 boxes)
        short third = (short) (q3 ? 4 : 0);
        FloatVector acc = FloatVector.zero(F16);
        // Q2_K's Σ_g min_g·Σx_g per lane, scaled by dmin and summed over super-blocks: reduced once, at the end
        FloatVector mins = acc;
        for (int i = 0; i < blocks; i++) {
            long base = off + (long) i * blockBytes;
            float dx = a.d[xb + i];
            float d = LittleEndian.half(w, base + (q3 ? Q3_KCodec.D_OFFSET : Q2_KCodec.D_OFFSET)) * dx;
            IntVector groupScales;
            if (q3) {
                long sc = base + Q3_KCodec.SCALES_OFFSET;
                groupScales = ((IntVector) LongVector.broadcast(LongVector.SPECIES_128, KQuantDots.q3Scales(w, sc, 0))
                        .withLane(1, KQuantDots.q3Scales(w, sc, 1)).reinterpretAsBytes()
                        .convertShape(VectorOperators.B2I, I16, 0)).sub(32);
            } else {
                IntVector packed = (IntVector) ByteVector.fromMemorySegment(B16, w, base, LE)
                        .convertShape(VectorOperators.ZERO_EXTEND_B2I, I16, 0);
                groupScales = packed.and(0x0F);
                mins = ((FloatVector) packed.lanewise(VectorOperators.LSHR, 4).convert(VectorOperators.I2F, 0))
                        .mul(FloatVector.fromArray(F16, sums, (xb + i) * 16))
                        .fma(FloatVector.broadcast(F16, LittleEndian.half(w, base + Q2_KCodec.DMIN_OFFSET) * dx), mins);
            }
            // the hmask bits moved to bit 2 up front: bit 4n + k then lands there after a shift right by 4n + k
            ShortVector high = shiftLeft(unsigned32(w, base), 2);
            IntVector block = IntVector.zero(I16);
            for (int n = 0; n < 2; n++) {
                ShortVector qs = unsigned32(w, base + qsOffset + 32L * n);
                for (int k = 0; k < 4; k++) {
                    ShortVector level = shiftRight(qs, 2 * k).and((short) 3)
                            .or(shiftRight(high, 4 * n + k).and(third)).sub(third);
                    block = block.add(scaledPairs(level, x, xo + i * Q3_KCodec.BLOCK_SIZE + 128 * n + 32 * k,
                            groupScales, 8 * n + 2 * k));
                }
            }
            acc = ((FloatVector) block.convert(VectorOperators.I2F, 0)).fma(FloatVector.broadcast(F16, d), acc);
        }
        return acc.sub(mins).reduceLanes(VectorOperators.ADD);
    }

    /** {@link IQ4_NLCodec#VALUES} as bytes, the table of one {@code vpshufb}. */
    private static final ByteVector GRID = ByteVector.fromArray(B16, gridBytes(16), 0);

    /** The 16 grid values repeated over {@code lanes} bytes. */
    private static byte[] gridBytes(int lanes) {
        byte[] grid = new byte[lanes];
        for (int i = 0; i < lanes; i++) {
            grid[i] = (byte) IQ4_NLCodec.VALUES[i % 16];
        }
        return grid;
    }

    /** Grid values of the 16 nibbles in the low ({@code shift 0}) or high ({@code 4}) halves of 16 bytes, 16-bit lanes. */
    private static ShortVector grid16(ByteVector packed, int shift) {
        ByteVector nibbles = packed.reinterpretAsShorts().lanewise(VectorOperators.LSHR, shift).reinterpretAsBytes()
                .and((byte) 0x0F);
        return (ShortVector) nibbles.selectFrom(GRID).convertShape(VectorOperators.B2S, S16, 0);
    }

    /**
     * {@code Σ grid(n)·q_x} of one 32-element IQ4 block (16 bytes from {@code at}: low nibbles the first 16
     * elements, high nibbles the next), 8 int lanes: products reach 127·127, so each half is paired on its own.
     */
    static IntVector iq4Block(MemorySegment w, long at, short[] x, int xi) {
        ByteVector packed = ByteVector.fromMemorySegment(B16, w, at, LE);
        return pairInts(grid16(packed, 0).mul(ShortVector.fromArray(S16, x, xi)))
                .add(pairInts(grid16(packed, 4).mul(ShortVector.fromArray(S16, x, xi + 16))));
    }

    /** IQ4_NL row of {@code blocks} blocks of 32 with Q8_0 activations: {@code Σ d·d_x·(grid(n) · q_x)}. */
    static float iq4_NL(MemorySegment w, long off, QuantizedActivations a, int xo, int blocks) {
        short[] x = a.q;
        int xb = xo / IQ4_NLCodec.BLOCK_SIZE;
        FloatVector acc = FloatVector.zero(F8);
        for (int i = 0; i < blocks; i++) {
            long base = off + (long) i * IQ4_NLCodec.BLOCK_BYTES;
            acc = ((FloatVector) iq4Block(w, base + IQ4_NLCodec.QS_OFFSET, x, xo + i * IQ4_NLCodec.BLOCK_SIZE)
                    .convert(VectorOperators.I2F, 0))
                    .fma(FloatVector.broadcast(F8, LittleEndian.half(w, base) * a.d[xb + i]), acc);
        }
        return acc.reduceLanes(VectorOperators.ADD);
    }

    /**
     * IQ4_XS row of {@code blocks} super-blocks with Q8_K activations: {@code Σ d·d_x·Σ_s (ls_s − 32)·(grid(n_s) · q_x)}
     * over the 32-element sub-blocks {@code s} (nibbles {@code qs[16s ..]}, scales as in {@link KQuantDots#iq4_XS}).
     */
    static float iq4_XS(MemorySegment w, long off, QuantizedActivations a, int xo, int blocks) {
        return WIDE ? iq4_XSWide(w, off, a, xo, blocks) : iq4_XSNarrow(w, off, a, xo, blocks);
    }

    /** {@link #iq4_XS} with 256-bit vectors, a sub-block at a time. */
    private static float iq4_XSNarrow(MemorySegment w, long off, QuantizedActivations a, int xo, int blocks) {
        short[] x = a.q;
        int xb = xo / IQ4_XSCodec.BLOCK_SIZE;
        FloatVector acc = FloatVector.zero(F8);
        for (int i = 0; i < blocks; i++) {
            long base = off + (long) i * IQ4_XSCodec.BLOCK_BYTES;
            float d = LittleEndian.half(w, base) * a.d[xb + i];
            int scalesHigh = w.get(LittleEndian.SHORT, base + IQ4_XSCodec.SCALES_H_OFFSET);
            int scalesLow = w.get(LE_INT, base + IQ4_XSCodec.SCALES_L_OFFSET);
            int xe = xo + i * IQ4_XSCodec.BLOCK_SIZE;
            // three loops of two, not one of eight (see the class comment)
            for (int quarter = 0; quarter < 2; quarter++)
            for (int pair = 0; pair < 2; pair++)
            for (int h = 0; h < 2; h++) {
                int s = 4 * quarter + 2 * pair + h;
                int ls = ((scalesLow >>> (4 * s)) & 0x0F) | ((scalesHigh >>> (2 * s)) & 3) << 4;
                // one call site of iq4Block: two per iteration outgrew C2's inlining budget
                acc = ((FloatVector) iq4Block(w, base + IQ4_XSCodec.QS_OFFSET + 16L * s, x, xe + 32 * s)
                        .convert(VectorOperators.I2F, 0)).fma(FloatVector.broadcast(F8, d * (ls - 32)), acc);
            }
        }
        return acc.reduceLanes(VectorOperators.ADD);
    }

    /**
     * {@link #iq4_XS} with 512-bit vectors: two sub-blocks' 32 packed bytes are one load, their grid values two
     * permutes, against {@link QuantizedActivations#nibbleOrder}; the products pair into int lanes 0..7 (the first
     * sub-block) and 8..15 (the second), take the sub-blocks' scales there as ints and add up over the super-block,
     * which converts once.
     */
    private static float iq4_XSWide(MemorySegment w, long off, QuantizedActivations a, int xo, int blocks) {
        short[] x = a.nibbleOrder;
        int xb = xo / IQ4_XSCodec.BLOCK_SIZE;
        FloatVector acc = FloatVector.zero(F16);
        for (int i = 0; i < blocks; i++) {
            long base = off + (long) i * IQ4_XSCodec.BLOCK_BYTES;
            IntVector scales = IntVector.broadcast(I16, w.get(LE_INT, base + IQ4_XSCodec.SCALES_L_OFFSET))
                    .lanewise(VectorOperators.LSHR, NIBBLE_SHIFTS).and(0x0F)
                    .or(IntVector.broadcast(I16, (int) w.get(LittleEndian.SHORT, base + IQ4_XSCodec.SCALES_H_OFFSET))
                            .lanewise(VectorOperators.LSHR, CRUMB_SHIFTS).and(3).lanewise(VectorOperators.LSHL, 4))
                    .sub(32);
            int xe = xo + i * IQ4_XSCodec.BLOCK_SIZE;
            // one call site of iq4Pair: two per iteration outgrew C2's inlining budget
            IntVector sum = IntVector.zero(I16);
            for (int pair = 0; pair < 4; pair++) {
                sum = sum.add(iq4Pair(w, base + IQ4_XSCodec.QS_OFFSET + 32L * pair, x, xe + 64 * pair)
                        .mul(HALF_INDEX.add(2 * pair).selectFrom(scales)));
            }
            acc = ((FloatVector) sum.convert(VectorOperators.I2F, 0))
                    .fma(FloatVector.broadcast(F16, LittleEndian.half(w, base) * a.d[xb + i]), acc);
        }
        return acc.reduceLanes(VectorOperators.ADD);
    }

    /**
     * Two IQ4 sub-blocks of 32 from the 32 packed bytes at {@code qs} against nibble-ordered activations from
     * {@code xi}: int lanes 0..7 the first sub-block's pairs, 8..15 the second's. Products reach 127·127, so the low
     * and the high nibbles' products are paired apart.
     */
    private static IntVector iq4Pair(MemorySegment w, long qs, short[] x, int xi) {
        ByteVector packed = ByteVector.fromMemorySegment(B32, w, qs, LE);
        ShortVector lo = (ShortVector) packed.and((byte) 0x0F).selectFrom(GRID32).convertShape(VectorOperators.B2S, S32, 0);
        ShortVector hi = (ShortVector) packed.lanewise(VectorOperators.LSHR, 4).selectFrom(GRID32)
                .convertShape(VectorOperators.B2S, S32, 0);
        return pairInts(lo.mul(ShortVector.fromArray(S32, x, xi))).add(pairInts(hi.mul(ShortVector.fromArray(S32, x, xi + 32))));
    }

    /**
     * Q6_K row of {@code blocks} super-blocks with Q8_K activations: {@code Σ d·d_x·scale_g·((u − 32) · q_x)}
     * over groups {@code g} of 16, {@code u} the unsigned six-bit levels; the 32 comes off through the
     * activations' sums per 16. Per half of 128 elements, level {@code k} (0..3) of lane {@code l} takes
     * nibble {@code k/2} of {@code ql[l + 32·(k&1)]} and bits {@code 2k, 2k+1} of {@code qh[l]} (see
     * {@link Q6_KCodec}). The four levels run through one loop body: written out four times, the method
     * outgrew C2's inlining node budget, its helpers stayed calls and their vectors were boxed (5× slower).
     */
    static float q6_K(MemorySegment w, long off, QuantizedActivations a, int xo, int blocks) {
        if (WIDE) {
            return q6_KWide(w, off, a, xo, blocks);
        }
        short[] x = a.q;
        float[] sums = a.sums;
        int xb = xo / Q6_KCodec.BLOCK_SIZE;
        FloatVector acc = FloatVector.zero(F8);
        // Σ_g scale_g·Σx_g per lane, scaled by 32·d and summed over super-blocks: reduced once, at the end
        FloatVector offset = acc;
        for (int i = 0; i < blocks; i++) {
            long base = off + (long) i * Q6_KCodec.BLOCK_BYTES;
            float d = LittleEndian.half(w, base + Q6_KCodec.D_OFFSET) * a.d[xb + i];
            long sc = base + Q6_KCodec.SCALES_OFFSET;
            FloatVector d32 = FloatVector.broadcast(F8, 32f * d);
            int g0 = (xb + i) * 16;
            offset = eightScales(w, sc).mul(FloatVector.fromArray(F8, sums, g0)).fma(d32, offset);
            offset = eightScales(w, sc + 8).mul(FloatVector.fromArray(F8, sums, g0 + 8)).fma(d32, offset);
            // each group's paired products times its scale, as ints (exact, as in q6_KWide): one conversion a block
            IntVector block = IntVector.zero(I8);
            // two loops of two, not one of four (see the class comment)
            for (int n = 0; n < 2; n++)
            for (int half = 0; half < 2; half++) {
                int l = 16 * half;
                ShortVector qh = unsigned16(w, base + Q6_KCodec.QH_OFFSET + 32L * n + l);
                int xe = xo + i * Q6_KCodec.BLOCK_SIZE + 128 * n + l;
                long s = sc + 8L * n + (l >>> 4);
                for (int k = 0; k < 4; k += 2) {
                    ShortVector ql = unsigned16(w, base + 64L * n + l + 16L * k);
                    ShortVector lo = ql.and((short) 0x0F)
                            .or(qh.lanewise(VectorOperators.LSHL, 4 - k).and((short) 0x30));
                    ShortVector up = ql.lanewise(VectorOperators.LSHR, 4)
                            .or(qh.lanewise(VectorOperators.LSHR, k).and((short) 0x30));
                    block = block
                            .add(pairInts(lo.mul(ShortVector.fromArray(S16, x, xe + 32 * (k >>> 1))))
                                    .mul(w.get(ValueLayout.JAVA_BYTE, s + (k >>> 1) * 2)))
                            .add(pairInts(up.mul(ShortVector.fromArray(S16, x, xe + 64 + 32 * (k >>> 1))))
                                    .mul(w.get(ValueLayout.JAVA_BYTE, s + 4 + (k >>> 1) * 2)));
                }
            }
            acc = ((FloatVector) block.convert(VectorOperators.I2F, 0)).fma(FloatVector.broadcast(F8, d), acc);
        }
        return acc.sub(offset).reduceLanes(VectorOperators.ADD);
    }

    /** Eight signed group scales from {@code off}, as float lanes. */
    private static FloatVector eightScales(MemorySegment w, long off) {
        return (FloatVector) ByteVector.fromMemorySegment(B8, w, off, LE).convertShape(VectorOperators.B2F, F8, 0);
    }

    /**
     * {@link #q6_K} with 512-bit vectors: level {@code k} of half {@code n} covers elements {@code 128n + 32k ..} and
     * is one short vector (nibble {@code k/2} of {@code ql[64n + 32·(k&1) ..]}, bits {@code 2k, 2k+1} of
     * {@code qh[32n ..]}); its paired products take the scales of groups {@code 8n + 2k} (lower 8 int lanes) and
     * {@code 8n + 2k + 1} (upper), picked from the super-block's 16 scales in one permute, as ints, exactly:
     * |pair·scale| ≤ 2·63·128·128, eight of them per lane per super-block, so a super-block converts to float once.
     */
    private static float q6_KWide(MemorySegment w, long off, QuantizedActivations a, int xo, int blocks) {
        short[] x = a.q;
        float[] sums = a.sums;
        int xb = xo / Q6_KCodec.BLOCK_SIZE;
        FloatVector acc = FloatVector.zero(F16);
        // Σ_g scale_g·Σx_g per lane, scaled by 32·d and summed over super-blocks: reduced once, at the end
        FloatVector offset = acc;
        for (int i = 0; i < blocks; i++) {
            long base = off + (long) i * Q6_KCodec.BLOCK_BYTES;
            float d = LittleEndian.half(w, base + Q6_KCodec.D_OFFSET) * a.d[xb + i];
            long sc = base + Q6_KCodec.SCALES_OFFSET;
            IntVector groupScales = (IntVector) ByteVector.fromMemorySegment(B16, w, sc, LE)
                    .convertShape(VectorOperators.B2I, I16, 0);
            offset = ((FloatVector) groupScales.convert(VectorOperators.I2F, 0))
                    .mul(FloatVector.fromArray(F16, sums, (xb + i) * 16)).fma(FloatVector.broadcast(F16, 32f * d), offset);
            IntVector block = IntVector.zero(I16);
            for (int n = 0; n < 2; n++) {
                // bits 2k, 2k+1 moved up to 4, 5 first: a shift right by 2k then leaves them there
                ShortVector qh = shiftLeft(unsigned32(w, base + Q6_KCodec.QH_OFFSET + 32L * n), 4);
                for (int k = 0; k < 4; k++) {
                    ShortVector level = shiftRight(unsigned32(w, base + 64L * n + 32L * (k & 1)), 4 * (k >>> 1))
                            .and((short) 0x0F).or(shiftRight(qh, 2 * k).and((short) 0x30));
                    block = block.add(scaledPairs(level, x, xo + i * Q6_KCodec.BLOCK_SIZE + 128 * n + 32 * k,
                            groupScales, 8 * n + 2 * k));
                }
            }
            acc = ((FloatVector) block.convert(VectorOperators.I2F, 0)).fma(FloatVector.broadcast(F16, d), acc);
        }
        return acc.sub(offset).reduceLanes(VectorOperators.ADD);
    }
}
