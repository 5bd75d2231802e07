package io.squall.kernels.cpu;

import io.squall.kernels.GgmlType;
import io.squall.kernels.WeightMatrix;
import io.squall.kernels.format.Q6_KCodec;
import jdk.incubator.vector.ByteVector;
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
 * A Q6_K matrix with eight rows interleaved ({@link InterleavedRows}), each level {@code q} (0..63) as a byte: the
 * one-row product pulls a byte out of a 16-bit lane with a shift of the ints that hold two lanes and a mask, where
 * unpacking the six bits from the GGML layout's two planes took ten operations per 16 levels.
 *
 * <p>Layout, for each group of {@link #ROWS} rows (the last padded with zero rows), for each 256-element super-block:
 * the eight rows' {@code d} as float32 (32 bytes); the sixteen 16-element sub-blocks' scales, eight bytes (one a row)
 * per sub-block; then per sub-block four chunks of 32 bytes, one little-endian int per row: for the sub-block's
 * elements {@code 8h .. 8h+7} ({@code h} = 0, 1) chunk {@code 2h} holds levels {@code 0, 1, 4, 5} of them as its four
 * bytes and chunk {@code 2h+1} levels {@code 2, 3, 6, 7}. Read as 16-bit lanes, a chunk's low bytes then pair with
 * one broadcast pair of activations {@code (x[i], x[4+i])} and its high bytes with the next ({@link
 * QuantizedActivations#chunkPairs}). 8.6 bits a weight, where Q6_K's are 6.6.
 *
 * <p>Integer sums are exact, as llama.cpp's. A chunk's low bytes and its high bytes are summed apart, so a 16-bit lane
 * holds four products of a sub-block, within 4·63·127. Each row's four lane sums are widened to an int, less the
 * sub-block's {@code 32·Σq_x} (from Q8_K's {@link QuantizedActivations#sums}), which leaves {@code Σ(q − 32)·q_x}; that
 * is multiplied by the sub-block's scale, and a super-block's sum turns float once, times {@code d·d_x}. The
 * activations are Q8_K, llama.cpp's for Q6_K. With signed levels and one sum a lane, each byte took a 16-bit shift,
 * whose count C2 moves into a vector register at every use.
 */
final class InterleavedBytes extends InterleavedRows {

    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final VectorSpecies<Short> S16 = ShortVector.SPECIES_256;
    private static final VectorSpecies<Integer> I8 = IntVector.SPECIES_256;
    private static final VectorSpecies<Float> F8 = FloatVector.SPECIES_256;
    private static final VectorSpecies<Byte> B8 = ByteVector.SPECIES_64;
    private static final ValueLayout.OfInt LE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(LE);
    private static final int SUB_BLOCKS = 16;
    /** The low byte of each 16-bit lane of an int. */
    private static final int LOW_BYTES = 0x00FF_00FF;
    private static final int CHUNK_BYTES = ROWS * Integer.BYTES;
    private static final int D_BYTES = ROWS * Float.BYTES;
    private static final int SCALES_BYTES = SUB_BLOCKS * ROWS;
    /** Bytes of one super-block of a group. */
    private static final int TILE_BYTES = D_BYTES + SCALES_BYTES + SUB_BLOCKS * 4 * CHUNK_BYTES;

    private final int blocks;

    private InterleavedBytes(WeightMatrix w, Arena arena) {
        super(w.rows(), (long) (w.cols() / Q6_KCodec.BLOCK_SIZE) * TILE_BYTES, arena);
        this.blocks = w.cols() / Q6_KCodec.BLOCK_SIZE;
    }

    /** An empty copy of {@code w} (Q6_K) in memory of {@code arena}. */
    static InterleavedBytes allocate(WeightMatrix w, Arena arena) {
        if (w.type() != GgmlType.Q6_K) {
            throw new IllegalArgumentException(w.name() + ": only Q6_K is interleaved as bytes, got " + w.type());
        }
        return new InterleavedBytes(w, arena);
    }

    /** As {@link InterleavedNibbles#fill}: a group's tiles assembled in a heap array, one source row at a time. */
    @Override
    void fill(WeightMatrix w, int first, int end) {
        int rowBytes = (int) w.rowBytes();
        byte[] row = new byte[rowBytes];
        byte[] levels = new byte[Q6_KCodec.BLOCK_SIZE];
        byte[] group = new byte[(int) groupBytes];
        for (int g = first / ROWS; g * ROWS < end; g++) {
            long at = g * groupBytes;
            MemorySegment.copy(data, ValueLayout.JAVA_BYTE, at, group, 0, group.length); // keeps rows outside [first, end)
            for (int r = Math.max(first, g * ROWS), last = Math.min(end, (g + 1) * ROWS); r < last; r++) {
                MemorySegment.copy(w.data(), ValueLayout.JAVA_BYTE, (long) r * rowBytes, row, 0, rowBytes);
                int lane = r - g * ROWS;
                for (int b = 0; b < blocks; b++) {
                    int o = b * Q6_KCodec.BLOCK_BYTES;
                    int tile = b * TILE_BYTES;
                    levels(row, o, levels);
                    putInt(group, tile + 4 * lane, Float.floatToRawIntBits(Float.float16ToFloat(
                            (short) (row[o + Q6_KCodec.D_OFFSET] & 0xFF | row[o + Q6_KCodec.D_OFFSET + 1] << 8))));
                    for (int s = 0; s < SUB_BLOCKS; s++) {
                        group[tile + D_BYTES + s * ROWS + lane] = row[o + Q6_KCodec.SCALES_OFFSET + s];
                        for (int h = 0; h < 2; h++) {
                            int e = 16 * s + 8 * h;
                            int chunk = tile + D_BYTES + SCALES_BYTES + (4 * s + 2 * h) * CHUNK_BYTES + 4 * lane;
                            group[chunk] = levels[e];
                            group[chunk + 1] = levels[e + 1];
                            group[chunk + 2] = levels[e + 4];
                            group[chunk + 3] = levels[e + 5];
                            group[chunk + CHUNK_BYTES] = levels[e + 2];
                            group[chunk + CHUNK_BYTES + 1] = levels[e + 3];
                            group[chunk + CHUNK_BYTES + 2] = levels[e + 6];
                            group[chunk + CHUNK_BYTES + 3] = levels[e + 7];
                        }
                    }
                }
            }
            MemorySegment.copy(group, 0, data, ValueLayout.JAVA_BYTE, at, group.length);
        }
    }

    /** The 256 levels {@code q} (0..63) of the super-block at {@code o} of {@code row}, as ggml's dequantize_row_q6_K reads them. */
    private static void levels(byte[] row, int o, byte[] levels) {
        for (int n = 0; n < 2; n++) {
            int ql = o + 64 * n;
            int qh = o + Q6_KCodec.QH_OFFSET + 32 * n;
            for (int l = 0; l < 32; l++) {
                int low0 = row[ql + l] & 0xFF;
                int low32 = row[ql + l + 32] & 0xFF;
                int high = row[qh + l] & 0xFF;
                levels[128 * n + l] = (byte) (low0 & 0x0F | (high & 3) << 4);
                levels[128 * n + l + 32] = (byte) (low32 & 0x0F | (high >>> 2 & 3) << 4);
                levels[128 * n + l + 64] = (byte) (low0 >>> 4 | (high >>> 4 & 3) << 4);
                levels[128 * n + l + 96] = (byte) (low32 >>> 4 | (high >>> 6 & 3) << 4);
            }
        }
    }

    private static void putInt(byte[] b, int at, int v) {
        b[at] = (byte) v;
        b[at + 1] = (byte) (v >>> 8);
        b[at + 2] = (byte) (v >>> 16);
        b[at + 3] = (byte) (v >>> 24);
    }

    @Override
    void multiply(QuantizedActivations a, float[] out, int k) {
        fourGroups(data, groupBytes, blocks, a.chunkPairs, a.d, a.sums, out, rows, k, group(k, 1), group(k, 2),
                group(k, 3));
    }

    /** The sums of groups {@code g0 .. g3} into {@code out}, as {@link InterleavedNibbles}' are. */
    private static void fourGroups(MemorySegment data, long groupBytes, int blocks, int[] pairs, float[] xd,
                                   float[] xs, float[] out, int rows, int g0, int g1, int g2, int g3) {
        FloatVector acc0 = FloatVector.zero(F8);
        FloatVector acc1 = acc0;
        FloatVector acc2 = acc0;
        FloatVector acc3 = acc0;
        long base0 = g0 * groupBytes;
        long base1 = g1 * groupBytes;
        long base2 = g2 * groupBytes;
        long base3 = g3 * groupBytes;
        for (int b = 0; b < blocks; b++) {
            long tile = (long) b * TILE_BYTES;
            IntVector int0 = IntVector.zero(I8);
            IntVector int1 = int0;
            IntVector int2 = int0;
            IntVector int3 = int0;
            int p = b * (Q6_KCodec.BLOCK_SIZE / 2) * ROWS;
            for (int s = 0; s < SUB_BLOCKS; s++) {
                // a chunk's low bytes and its high bytes summed apart: four products of 63·127 a lane each
                ShortVector low0 = ShortVector.zero(S16);
                ShortVector low1 = low0;
                ShortVector low2 = low0;
                ShortVector low3 = low0;
                ShortVector high0 = low0;
                ShortVector high1 = low0;
                ShortVector high2 = low0;
                ShortVector high3 = low0;
                // chunk c: its low bytes with pair 2c of the chunk's eight elements, its high bytes with pair 2c + 1;
                // a byte comes out of its 16-bit lanes by an int shift (an immediate) and a mask
                for (int c = 0; c < 4; c++, p += 2 * ROWS) {
                    long at = tile + D_BYTES + SCALES_BYTES + (long) (4 * s + c) * CHUNK_BYTES;
                    IntVector w0 = IntVector.fromMemorySegment(I8, data, base0 + at, LE);
                    IntVector w1 = IntVector.fromMemorySegment(I8, data, base1 + at, LE);
                    IntVector w2 = IntVector.fromMemorySegment(I8, data, base2 + at, LE);
                    IntVector w3 = IntVector.fromMemorySegment(I8, data, base3 + at, LE);
                    ShortVector x = IntVector.fromArray(I8, pairs, p).reinterpretAsShorts();
                    low0 = low0.add(w0.and(LOW_BYTES).reinterpretAsShorts().mul(x));
                    low1 = low1.add(w1.and(LOW_BYTES).reinterpretAsShorts().mul(x));
                    low2 = low2.add(w2.and(LOW_BYTES).reinterpretAsShorts().mul(x));
                    low3 = low3.add(w3.and(LOW_BYTES).reinterpretAsShorts().mul(x));
                    x = IntVector.fromArray(I8, pairs, p + ROWS).reinterpretAsShorts();
                    high0 = high0.add(w0.lanewise(VectorOperators.LSHR, 8).and(LOW_BYTES).reinterpretAsShorts().mul(x));
                    high1 = high1.add(w1.lanewise(VectorOperators.LSHR, 8).and(LOW_BYTES).reinterpretAsShorts().mul(x));
                    high2 = high2.add(w2.lanewise(VectorOperators.LSHR, 8).and(LOW_BYTES).reinterpretAsShorts().mul(x));
                    high3 = high3.add(w3.lanewise(VectorOperators.LSHR, 8).and(LOW_BYTES).reinterpretAsShorts().mul(x));
                }
                // the four 16-bit sums of row r (lanes 2r and 2r+1 of both) into int lane r, less 32·Σq of the
                // sub-block: Σ(q − 32)·q_x, times the row's scale
                long scales = tile + D_BYTES + (long) s * ROWS;
                IntVector offset = IntVector.broadcast(I8, 32 * (int) xs[16 * b + s]); // Q8_K's Σq, exact in a float
                IntVector l0 = low0.reinterpretAsInts();
                IntVector h0 = high0.reinterpretAsInts();
                int0 = int0.add(l0.lanewise(VectorOperators.LSHL, 16).lanewise(VectorOperators.ASHR, 16)
                        .add(l0.lanewise(VectorOperators.ASHR, 16))
                        .add(h0.lanewise(VectorOperators.LSHL, 16).lanewise(VectorOperators.ASHR, 16))
                        .add(h0.lanewise(VectorOperators.ASHR, 16)).sub(offset)
                        .mul((IntVector) ByteVector.fromMemorySegment(B8, data, base0 + scales, LE)
                                .convertShape(VectorOperators.B2I, I8, 0)));
                IntVector l1 = low1.reinterpretAsInts();
                IntVector h1 = high1.reinterpretAsInts();
                int1 = int1.add(l1.lanewise(VectorOperators.LSHL, 16).lanewise(VectorOperators.ASHR, 16)
                        .add(l1.lanewise(VectorOperators.ASHR, 16))
                        .add(h1.lanewise(VectorOperators.LSHL, 16).lanewise(VectorOperators.ASHR, 16))
                        .add(h1.lanewise(VectorOperators.ASHR, 16)).sub(offset)
                        .mul((IntVector) ByteVector.fromMemorySegment(B8, data, base1 + scales, LE)
                                .convertShape(VectorOperators.B2I, I8, 0)));
                IntVector l2 = low2.reinterpretAsInts();
                IntVector h2 = high2.reinterpretAsInts();
                int2 = int2.add(l2.lanewise(VectorOperators.LSHL, 16).lanewise(VectorOperators.ASHR, 16)
                        .add(l2.lanewise(VectorOperators.ASHR, 16))
                        .add(h2.lanewise(VectorOperators.LSHL, 16).lanewise(VectorOperators.ASHR, 16))
                        .add(h2.lanewise(VectorOperators.ASHR, 16)).sub(offset)
                        .mul((IntVector) ByteVector.fromMemorySegment(B8, data, base2 + scales, LE)
                                .convertShape(VectorOperators.B2I, I8, 0)));
                IntVector l3 = low3.reinterpretAsInts();
                IntVector h3 = high3.reinterpretAsInts();
                int3 = int3.add(l3.lanewise(VectorOperators.LSHL, 16).lanewise(VectorOperators.ASHR, 16)
                        .add(l3.lanewise(VectorOperators.ASHR, 16))
                        .add(h3.lanewise(VectorOperators.LSHL, 16).lanewise(VectorOperators.ASHR, 16))
                        .add(h3.lanewise(VectorOperators.ASHR, 16)).sub(offset)
                        .mul((IntVector) ByteVector.fromMemorySegment(B8, data, base3 + scales, LE)
                                .convertShape(VectorOperators.B2I, I8, 0)));
            }
            float dx = xd[b];
            acc0 = ((FloatVector) int0.convert(VectorOperators.I2F, 0))
                    .fma(FloatVector.fromMemorySegment(F8, data, base0 + tile, LE).mul(dx), acc0);
            acc1 = ((FloatVector) int1.convert(VectorOperators.I2F, 0))
                    .fma(FloatVector.fromMemorySegment(F8, data, base1 + tile, LE).mul(dx), acc1);
            acc2 = ((FloatVector) int2.convert(VectorOperators.I2F, 0))
                    .fma(FloatVector.fromMemorySegment(F8, data, base2 + tile, LE).mul(dx), acc2);
            acc3 = ((FloatVector) int3.convert(VectorOperators.I2F, 0))
                    .fma(FloatVector.fromMemorySegment(F8, data, base3 + tile, LE).mul(dx), acc3);
        }
        store(acc0, out, rows, g0, g0, true);
        store(acc1, out, rows, g1, g0, false);
        store(acc2, out, rows, g2, g0, false);
        store(acc3, out, rows, g3, g0, false);
    }
}
