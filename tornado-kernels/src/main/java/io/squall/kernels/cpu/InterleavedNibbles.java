package io.squall.kernels.cpu;

import io.squall.kernels.GgmlType;
import io.squall.kernels.WeightMatrix;
import io.squall.kernels.format.Q4_0Codec;
import io.squall.kernels.format.Q4_KCodec;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * A Q4_0 or Q4_K matrix with eight rows interleaved ({@link InterleavedRows}), as llama.cpp repacks them on AVX2
 * ({@code block_q4_0x8}, {@code block_q4_Kx8}): with no horizontal sum, pairing or conversion per row and block. Where
 * the GGML layout took the one-row integer dot ({@link IntDots#q4_0}), 145–150 µs for 2048x768 in cache on one thread,
 * this takes 100–120 (docs/BENCHMARKS.md).
 *
 * <p>Layout, for each group of {@link #ROWS} rows (the last padded with zero rows), for each 32-element block: the eight
 * rows' scales as float32 (32 bytes), then four chunks of 32 bytes, chunk {@code c} holding elements {@code 8c .. 8c+7}
 * of the block as one little-endian int per row, element {@code 8c + j} in bits {@code 4j .. 4j+3} as its nibble
 * {@code n} (0..15); a Q4_K block (one of its super-block's eight sub-blocks) then has
 * the eight rows' offsets as float32. Read as sixteen 16-bit lanes, lane {@code 2r} of a chunk holds row {@code r}'s
 * elements {@code 8c .. 8c+3} and lane {@code 2r+1} its {@code 8c+4 .. 8c+7}; so step {@code i} of a chunk multiplies
 * every row by one broadcast pair of activations {@code (x[8c+i], x[8c+4+i])} ({@link
 * QuantizedActivations#chunkPairs}). A block is 20 bytes a row where Q4_0's is 18, and 24 where Q4_K's is 18 (its
 * sub-block's share of the super-block's 144 bytes).
 *
 * <p>A Q4_0 weight is {@code d·(n − 8)}. A Q4_K weight {@code d·sc·n − dmin·m} is kept as {@code f·(n − 8) + o} with the
 * scale {@code f = d·sc} and the offset {@code o = 8f − dmin·m} of its sub-block, so both formats take one kernel: a
 * Q4_K row's sum also adds {@code o·d_x·Σq} per block ({@link QuantizedActivations#scaledBlockSums}). The activations
 * are rounded as llama.cpp rounds them for each format, Q8_0 for Q4_0 and Q8_K (one scale per 256) for Q4_K: rounded
 * per 32 elements instead, the one-token logits of held-out Q4_K_M and Q4_K_S models were up to 0.04 off llama.cpp's
 * where they had matched to four decimals.
 *
 * <p>Products are exact: {@code n ≤ 15} and the activations' levels lie in −127..127 (Q8_0's and Q8_K's alike), so a
 * lane's 16 products of a block sum within 16·15·127 = 30,480, in 16 bits. Each field is pulled out of its 16-bit lanes
 * by a shift of the ints that hold two lanes and a mask: C2 shifts ints by an immediate, where it moves a 16-bit
 * shift's count into a vector register at every use (16 {@code vmovd} a chunk, one thread 140–160 µs for 2048x768 in
 * cache against 100–120 now). A row's two lanes are then added as ints, less the block's {@code 8·Σq_x} ({@link
 * QuantizedActivations#nibbleOffsetSums}), which leaves the exact integer {@code Σ(n − 8)·q_x}. Each row then adds
 * {@code float(Σ)·(f·d_x)} per block by one fused multiply-add, llama.cpp's {@code ggml_gemv_q4_0_8x8_q8_0} order, so
 * the Q4_0 sums are that kernel's to the bit.
 */
final class InterleavedNibbles extends InterleavedRows {

    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final VectorSpecies<Short> S16 = ShortVector.SPECIES_256;
    private static final VectorSpecies<Integer> I8 = IntVector.SPECIES_256;
    private static final VectorSpecies<Float> F8 = FloatVector.SPECIES_256;
    private static final ValueLayout.OfInt LE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(LE);
    private static final int BLOCK = 32;
    /** The low nibble of each 16-bit lane of an int. */
    private static final int NIBBLES = 0x000F_000F;
    private static final int CHUNKS = 4;
    private static final int SCALE_BYTES = ROWS * Float.BYTES;
    private static final int CHUNK_BYTES = ROWS * Integer.BYTES;
    /** Bytes of one block of a group: the scales, the chunks, and for Q4_K the offsets. */
    private static final int Q4_0_TILE_BYTES = SCALE_BYTES + CHUNKS * CHUNK_BYTES;
    private static final int Q4_K_TILE_BYTES = Q4_0_TILE_BYTES + SCALE_BYTES;

    private final int blocks;
    /** Whether the blocks carry offsets (Q4_K). */
    private final boolean offsets;
    private final int tileBytes;

    private InterleavedNibbles(WeightMatrix w, Arena arena) {
        super(w.rows(), (long) (w.cols() / BLOCK) * tileBytes(w.type()), arena);
        this.blocks = w.cols() / BLOCK;
        this.offsets = w.type() == GgmlType.Q4_K;
        this.tileBytes = tileBytes(w.type());
    }

    private static int tileBytes(GgmlType type) {
        return type == GgmlType.Q4_K ? Q4_K_TILE_BYTES : Q4_0_TILE_BYTES;
    }

    /** Whether {@code type} has this layout: Q4_0 and Q4_K. */
    static boolean holds(GgmlType type) {
        return type == GgmlType.Q4_0 || type == GgmlType.Q4_K;
    }

    /** An empty copy of {@code w} (Q4_0 or Q4_K) in memory of {@code arena}. */
    static InterleavedNibbles allocate(WeightMatrix w, Arena arena) {
        if (!holds(w.type())) {
            throw new IllegalArgumentException(w.name() + ": only Q4_0 and Q4_K are interleaved, got " + w.type());
        }
        return new InterleavedNibbles(w, arena);
    }

    /**
     * Repacks rows {@code [first, end)} of {@code w}, the matrix this copy was allocated for. A group's tiles are
     * assembled in a heap array and each source row copied into one, so the per-block work is plain array arithmetic:
     * with a memory-segment access per field instead, the code C1 compiles first (what a fresh process runs) took
     * ~0.4 s over the 124.7M model's Q4_0 matrices.
     */
    @Override
    void fill(WeightMatrix w, int first, int end) {
        MemorySegment src = w.data();
        int rowBytes = (int) w.rowBytes();
        int tileInts = tileBytes / Integer.BYTES;
        byte[] row = new byte[rowBytes];
        int[] group = new int[blocks * tileInts];
        for (int g = first / ROWS; g * ROWS < end; g++) {
            long at = g * groupBytes;
            MemorySegment.copy(data, LE_INT, at, group, 0, group.length); // keeps rows outside [first, end)
            for (int r = Math.max(first, g * ROWS), last = Math.min(end, (g + 1) * ROWS); r < last; r++) {
                MemorySegment.copy(src, ValueLayout.JAVA_BYTE, (long) r * rowBytes, row, 0, rowBytes);
                if (offsets) {
                    fillQ4_K(row, group, r - g * ROWS);
                } else {
                    fillQ4_0(row, group, r - g * ROWS);
                }
            }
            MemorySegment.copy(group, 0, data, LE_INT, at, group.length);
        }
    }

    private void fillQ4_0(byte[] row, int[] group, int lane) {
        int tileInts = Q4_0_TILE_BYTES / Integer.BYTES;
        for (int b = 0, tile = 0, o = 0; b < blocks; b++, tile += tileInts, o += Q4_0Codec.BLOCK_BYTES) {
            group[tile + lane] = Float.floatToRawIntBits(half(row, o));
            // GGML: byte j holds element j (low nibble) and element j + 16 (high)
            long first8 = littleEndianLong(row, o + Q4_0Codec.QS_OFFSET);
            long second8 = littleEndianLong(row, o + Q4_0Codec.QS_OFFSET + 8);
            int words = tile + ROWS + lane;
            group[words] = lowNibbles(first8);
            group[words + ROWS] = lowNibbles(second8);
            group[words + 2 * ROWS] = lowNibbles(first8 >>> 4);
            group[words + 3 * ROWS] = lowNibbles(second8 >>> 4);
        }
    }

    private void fillQ4_K(byte[] row, int[] group, int lane) {
        int tileInts = Q4_K_TILE_BYTES / Integer.BYTES;
        int[] sc = new int[8];
        int[] m = new int[8];
        for (int sb = 0, tile = 0; sb < blocks / 8; sb++) {
            int o = sb * Q4_KCodec.BLOCK_BYTES;
            float d = half(row, o);
            float dmin = half(row, o + Q4_KCodec.DMIN_OFFSET);
            // ggml's get_scale_min_k4 for the twelve packed bytes: six bits of scale and of min per sub-block
            int s0 = o + Q4_KCodec.SCALES_OFFSET;
            for (int j = 0; j < 8; j++) {
                if (j < 4) {
                    sc[j] = row[s0 + j] & 63;
                    m[j] = row[s0 + j + 4] & 63;
                } else {
                    sc[j] = (row[s0 + j + 4] & 0x0F) | ((row[s0 + j - 4] & 0xFF) >>> 6) << 4;
                    m[j] = (row[s0 + j + 4] & 0xFF) >>> 4 | ((row[s0 + j] & 0xFF) >>> 6) << 4;
                }
            }
            // sub-block 2p + h: nibble h of the 32 bytes qs[32p ..], byte j holding its element j
            for (int s = 0; s < 8; s++, tile += tileInts) {
                float f = d * sc[s];
                group[tile + lane] = Float.floatToRawIntBits(f);
                group[tile + ROWS + CHUNKS * ROWS + lane] = Float.floatToRawIntBits(8 * f - dmin * m[s]);
                int qs = o + Q4_KCodec.QS_OFFSET + 32 * (s / 2);
                int shift = 4 * (s % 2);
                for (int c = 0; c < CHUNKS; c++) {
                    group[tile + ROWS + c * ROWS + lane] = lowNibbles(littleEndianLong(row, qs + 8 * c) >>> shift);
                }
            }
        }
    }

    private static float half(byte[] b, int at) {
        return Float.float16ToFloat((short) (b[at] & 0xFF | b[at + 1] << 8));
    }

    private static long littleEndianLong(byte[] b, int at) {
        return b[at] & 0xFFL | (b[at + 1] & 0xFFL) << 8 | (b[at + 2] & 0xFFL) << 16 | (b[at + 3] & 0xFFL) << 24
                | (b[at + 4] & 0xFFL) << 32 | (b[at + 5] & 0xFFL) << 40 | (b[at + 6] & 0xFFL) << 48
                | (b[at + 7] & 0xFFL) << 56;
    }

    /** The low nibbles of a long's eight bytes, byte {@code j}'s in bits {@code 4j .. 4j+3}. */
    private static int lowNibbles(long bytes) {
        long x = bytes & 0x0F0F0F0F0F0F0F0FL;
        x = (x | x >>> 4) & 0x00FF00FF00FF00FFL;
        x = (x | x >>> 8) & 0x0000FFFF0000FFFFL;
        return (int) (x | x >>> 16);
    }

    /**
     * {@inheritDoc} Also reads the activations' {@link QuantizedActivations#blockScales} and {@link
     * QuantizedActivations#scaledBlockSums}. Reading four streams, the hardware keeps more misses from DRAM in
     * flight than one stream with the same work per byte gets (its prefetchers stop at every 4 KiB page): 2048x768
     * cycling through 48 MiB, one thread, p50 151–165 µs with four streams, 167–186 with two, 290 with one; and each
     * activation vector serves all four groups.
     */
    @Override
    void multiply(QuantizedActivations a, float[] out, int k) {
        fourGroups(data, groupBytes, tileBytes, blocks, offsets, a.chunkPairs, a.blockScales, a.scaledBlockSums,
                a.nibbleOffsetSums, out, rows, k,
                group(k, 1), group(k, 2), group(k, 3));
    }

    /**
     * The sums of groups {@code g0 .. g3} into {@code out}, each row's sum in its own lane; a group equal to {@code g0}
     * (but {@code g0} itself) is not stored, nor are rows from {@code rows} on (padding). With {@code offsets}, each
     * row also adds its block's offset times {@code xs}, the activation block's {@code d_x·Σq}.
     */
    private static void fourGroups(MemorySegment data, long groupBytes, int tileBytes, int blocks, boolean offsets,
                                   int[] pairs, float[] xd, float[] xs, int[] xo, float[] out, int rows,
                                   int g0, int g1, int g2, int g3) {
        FloatVector acc0 = FloatVector.zero(F8);
        FloatVector acc1 = acc0;
        FloatVector acc2 = acc0;
        FloatVector acc3 = acc0;
        long base0 = g0 * groupBytes + SCALE_BYTES;
        long base1 = g1 * groupBytes + SCALE_BYTES;
        long base2 = g2 * groupBytes + SCALE_BYTES;
        long base3 = g3 * groupBytes + SCALE_BYTES;
        for (int b = 0; b < blocks; b++) {
            long tile = (long) b * tileBytes;
            int p = b * CHUNKS * 4 * ROWS;
            // 16-bit sums: at most 16 products of 15·127 a lane
            ShortVector sum0 = ShortVector.zero(S16);
            ShortVector sum1 = sum0;
            ShortVector sum2 = sum0;
            ShortVector sum3 = sum0;
            for (int c = 0; c < CHUNKS; c++, p += 4 * ROWS) {
                // written out with the Vector API's own methods only: C2 inlines those whatever the method's size,
                // where helpers of ours past its node budget would stay calls on boxed vectors
                long at = tile + (long) c * CHUNK_BYTES;
                IntVector w0 = IntVector.fromMemorySegment(I8, data, base0 + at, LE);
                IntVector w1 = IntVector.fromMemorySegment(I8, data, base1 + at, LE);
                IntVector w2 = IntVector.fromMemorySegment(I8, data, base2 + at, LE);
                IntVector w3 = IntVector.fromMemorySegment(I8, data, base3 + at, LE);
                // each 16-bit lane's field j shifted down as two lanes of an int (an immediate shift; a 16-bit shift
                // moves its count into a vector register at every use) and masked
                ShortVector x = IntVector.fromArray(I8, pairs, p).reinterpretAsShorts();
                sum0 = sum0.add(w0.and(NIBBLES).reinterpretAsShorts().mul(x));
                sum1 = sum1.add(w1.and(NIBBLES).reinterpretAsShorts().mul(x));
                sum2 = sum2.add(w2.and(NIBBLES).reinterpretAsShorts().mul(x));
                sum3 = sum3.add(w3.and(NIBBLES).reinterpretAsShorts().mul(x));
                x = IntVector.fromArray(I8, pairs, p + ROWS).reinterpretAsShorts();
                sum0 = sum0.add(w0.lanewise(VectorOperators.LSHR, 4).and(NIBBLES).reinterpretAsShorts().mul(x));
                sum1 = sum1.add(w1.lanewise(VectorOperators.LSHR, 4).and(NIBBLES).reinterpretAsShorts().mul(x));
                sum2 = sum2.add(w2.lanewise(VectorOperators.LSHR, 4).and(NIBBLES).reinterpretAsShorts().mul(x));
                sum3 = sum3.add(w3.lanewise(VectorOperators.LSHR, 4).and(NIBBLES).reinterpretAsShorts().mul(x));
                x = IntVector.fromArray(I8, pairs, p + 2 * ROWS).reinterpretAsShorts();
                sum0 = sum0.add(w0.lanewise(VectorOperators.LSHR, 8).and(NIBBLES).reinterpretAsShorts().mul(x));
                sum1 = sum1.add(w1.lanewise(VectorOperators.LSHR, 8).and(NIBBLES).reinterpretAsShorts().mul(x));
                sum2 = sum2.add(w2.lanewise(VectorOperators.LSHR, 8).and(NIBBLES).reinterpretAsShorts().mul(x));
                sum3 = sum3.add(w3.lanewise(VectorOperators.LSHR, 8).and(NIBBLES).reinterpretAsShorts().mul(x));
                x = IntVector.fromArray(I8, pairs, p + 3 * ROWS).reinterpretAsShorts();
                sum0 = sum0.add(w0.lanewise(VectorOperators.LSHR, 12).and(NIBBLES).reinterpretAsShorts().mul(x));
                sum1 = sum1.add(w1.lanewise(VectorOperators.LSHR, 12).and(NIBBLES).reinterpretAsShorts().mul(x));
                sum2 = sum2.add(w2.lanewise(VectorOperators.LSHR, 12).and(NIBBLES).reinterpretAsShorts().mul(x));
                sum3 = sum3.add(w3.lanewise(VectorOperators.LSHR, 12).and(NIBBLES).reinterpretAsShorts().mul(x));
            }
            // lanes 2r and 2r+1 summed into int lane r (each row's exact block sum), then scaled by d_w·d_x
            float dx = xd[b];
            IntVector offset = IntVector.broadcast(I8, xo[b]);
            IntVector v = sum0.reinterpretAsInts();
            v = v.lanewise(VectorOperators.LSHL, 16).lanewise(VectorOperators.ASHR, 16)
                    .add(v.lanewise(VectorOperators.ASHR, 16)).sub(offset);
            acc0 = ((FloatVector) v.convert(VectorOperators.I2F, 0))
                    .fma(FloatVector.fromMemorySegment(F8, data, base0 + tile - SCALE_BYTES, LE).mul(dx), acc0);
            v = sum1.reinterpretAsInts();
            v = v.lanewise(VectorOperators.LSHL, 16).lanewise(VectorOperators.ASHR, 16)
                    .add(v.lanewise(VectorOperators.ASHR, 16)).sub(offset);
            acc1 = ((FloatVector) v.convert(VectorOperators.I2F, 0))
                    .fma(FloatVector.fromMemorySegment(F8, data, base1 + tile - SCALE_BYTES, LE).mul(dx), acc1);
            v = sum2.reinterpretAsInts();
            v = v.lanewise(VectorOperators.LSHL, 16).lanewise(VectorOperators.ASHR, 16)
                    .add(v.lanewise(VectorOperators.ASHR, 16)).sub(offset);
            acc2 = ((FloatVector) v.convert(VectorOperators.I2F, 0))
                    .fma(FloatVector.fromMemorySegment(F8, data, base2 + tile - SCALE_BYTES, LE).mul(dx), acc2);
            v = sum3.reinterpretAsInts();
            v = v.lanewise(VectorOperators.LSHL, 16).lanewise(VectorOperators.ASHR, 16)
                    .add(v.lanewise(VectorOperators.ASHR, 16)).sub(offset);
            acc3 = ((FloatVector) v.convert(VectorOperators.I2F, 0))
                    .fma(FloatVector.fromMemorySegment(F8, data, base3 + tile - SCALE_BYTES, LE).mul(dx), acc3);
            if (offsets) {
                long at = tile + CHUNKS * CHUNK_BYTES;
                FloatVector sum = FloatVector.broadcast(F8, xs[b]);
                acc0 = FloatVector.fromMemorySegment(F8, data, base0 + at, LE).fma(sum, acc0);
                acc1 = FloatVector.fromMemorySegment(F8, data, base1 + at, LE).fma(sum, acc1);
                acc2 = FloatVector.fromMemorySegment(F8, data, base2 + at, LE).fma(sum, acc2);
                acc3 = FloatVector.fromMemorySegment(F8, data, base3 + at, LE).fma(sum, acc3);
            }
        }
        store(acc0, out, rows, g0, g0, true);
        store(acc1, out, rows, g1, g0, false);
        store(acc2, out, rows, g2, g0, false);
        store(acc3, out, rows, g3, g0, false);
    }
}
