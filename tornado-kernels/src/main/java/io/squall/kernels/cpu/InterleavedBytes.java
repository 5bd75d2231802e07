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
 * A Q6_K matrix with eight rows interleaved ({@link InterleavedRows}), each level {@code q − 32} as a signed byte: the
 * one-row product pulls a byte out of a 16-bit lane with one or two shifts, where unpacking the six bits from the
 * GGML layout's two planes took ten operations per 16 levels.
 *
 * <p>Layout, for each group of {@link #ROWS} rows (the last padded with zero rows), for each 256-element super-block:
 * the eight rows' {@code d} as float32 (32 bytes); the sixteen 16-element sub-blocks' scales, eight bytes (one a row)
 * per sub-block; then per sub-block four chunks of 32 bytes, one little-endian int per row: for the sub-block's
 * elements {@code 8h .. 8h+7} ({@code h} = 0, 1) chunk {@code 2h} holds levels {@code 0, 1, 4, 5} of them as its four
 * bytes and chunk {@code 2h+1} levels {@code 2, 3, 6, 7}. Read as 16-bit lanes, a chunk's low bytes then pair with
 * one broadcast pair of activations {@code (x[i], x[4+i])} and its high bytes with the next ({@link
 * QuantizedActivations#chunkPairs}). 8.6 bits a weight, where Q6_K's are 6.6.
 *
 * <p>Integer sums are exact, as llama.cpp's: a lane's eight products of a sub-block stay within 8·32·127 in 16 bits,
 * each row's sub-block sum is widened to an int and multiplied by its scale, and a super-block's sum turns float once,
 * times {@code d·d_x}. The activations are Q8_K, llama.cpp's for Q6_K.
 */
final class InterleavedBytes extends InterleavedRows {

    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final VectorSpecies<Short> S16 = ShortVector.SPECIES_256;
    private static final VectorSpecies<Integer> I8 = IntVector.SPECIES_256;
    private static final VectorSpecies<Float> F8 = FloatVector.SPECIES_256;
    private static final VectorSpecies<Byte> B8 = ByteVector.SPECIES_64;
    private static final ValueLayout.OfInt LE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(LE);
    private static final int SUB_BLOCKS = 16;
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

    /** The 256 levels {@code q − 32} of the super-block at {@code o} of {@code row}, as ggml's dequantize_row_q6_K reads them. */
    private static void levels(byte[] row, int o, byte[] levels) {
        for (int n = 0; n < 2; n++) {
            int ql = o + 64 * n;
            int qh = o + Q6_KCodec.QH_OFFSET + 32 * n;
            for (int l = 0; l < 32; l++) {
                int low0 = row[ql + l] & 0xFF;
                int low32 = row[ql + l + 32] & 0xFF;
                int high = row[qh + l] & 0xFF;
                levels[128 * n + l] = (byte) ((low0 & 0x0F | (high & 3) << 4) - 32);
                levels[128 * n + l + 32] = (byte) ((low32 & 0x0F | (high >>> 2 & 3) << 4) - 32);
                levels[128 * n + l + 64] = (byte) ((low0 >>> 4 | (high >>> 4 & 3) << 4) - 32);
                levels[128 * n + l + 96] = (byte) ((low32 >>> 4 | (high >>> 6 & 3) << 4) - 32);
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
        fourGroups(data, groupBytes, blocks, a.chunkPairs, a.d, out, rows, k, group(k, 1), group(k, 2), group(k, 3));
    }

    /** The sums of groups {@code g0 .. g3} into {@code out}, as {@link InterleavedNibbles}' are. */
    private static void fourGroups(MemorySegment data, long groupBytes, int blocks, int[] pairs, float[] xd,
                                   float[] out, int rows, int g0, int g1, int g2, int g3) {
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
                ShortVector sum0 = ShortVector.zero(S16);
                ShortVector sum1 = sum0;
                ShortVector sum2 = sum0;
                ShortVector sum3 = sum0;
                // chunk c: its low bytes with pair 2c of the chunk's eight elements, its high bytes with pair 2c + 1
                for (int c = 0; c < 4; c++, p += 2 * ROWS) {
                    long at = tile + D_BYTES + SCALES_BYTES + (long) (4 * s + c) * CHUNK_BYTES;
                    ShortVector w0 = ShortVector.fromMemorySegment(S16, data, base0 + at, LE);
                    ShortVector w1 = ShortVector.fromMemorySegment(S16, data, base1 + at, LE);
                    ShortVector w2 = ShortVector.fromMemorySegment(S16, data, base2 + at, LE);
                    ShortVector w3 = ShortVector.fromMemorySegment(S16, data, base3 + at, LE);
                    ShortVector x = IntVector.fromArray(I8, pairs, p).reinterpretAsShorts();
                    sum0 = sum0.add(w0.mul((short) 256).lanewise(VectorOperators.ASHR, 8).mul(x));
                    sum1 = sum1.add(w1.mul((short) 256).lanewise(VectorOperators.ASHR, 8).mul(x));
                    sum2 = sum2.add(w2.mul((short) 256).lanewise(VectorOperators.ASHR, 8).mul(x));
                    sum3 = sum3.add(w3.mul((short) 256).lanewise(VectorOperators.ASHR, 8).mul(x));
                    x = IntVector.fromArray(I8, pairs, p + ROWS).reinterpretAsShorts();
                    sum0 = sum0.add(w0.lanewise(VectorOperators.ASHR, 8).mul(x));
                    sum1 = sum1.add(w1.lanewise(VectorOperators.ASHR, 8).mul(x));
                    sum2 = sum2.add(w2.lanewise(VectorOperators.ASHR, 8).mul(x));
                    sum3 = sum3.add(w3.lanewise(VectorOperators.ASHR, 8).mul(x));
                }
                // lanes 2r and 2r+1 (up to 32512 each) into int lane r, times the row's scale
                long scales = tile + D_BYTES + (long) s * ROWS;
                IntVector v = sum0.reinterpretAsInts();
                int0 = int0.add(v.lanewise(VectorOperators.LSHL, 16).lanewise(VectorOperators.ASHR, 16)
                        .add(v.lanewise(VectorOperators.ASHR, 16))
                        .mul((IntVector) ByteVector.fromMemorySegment(B8, data, base0 + scales, LE)
                                .convertShape(VectorOperators.B2I, I8, 0)));
                v = sum1.reinterpretAsInts();
                int1 = int1.add(v.lanewise(VectorOperators.LSHL, 16).lanewise(VectorOperators.ASHR, 16)
                        .add(v.lanewise(VectorOperators.ASHR, 16))
                        .mul((IntVector) ByteVector.fromMemorySegment(B8, data, base1 + scales, LE)
                                .convertShape(VectorOperators.B2I, I8, 0)));
                v = sum2.reinterpretAsInts();
                int2 = int2.add(v.lanewise(VectorOperators.LSHL, 16).lanewise(VectorOperators.ASHR, 16)
                        .add(v.lanewise(VectorOperators.ASHR, 16))
                        .mul((IntVector) ByteVector.fromMemorySegment(B8, data, base2 + scales, LE)
                                .convertShape(VectorOperators.B2I, I8, 0)));
                v = sum3.reinterpretAsInts();
                int3 = int3.add(v.lanewise(VectorOperators.LSHL, 16).lanewise(VectorOperators.ASHR, 16)
                        .add(v.lanewise(VectorOperators.ASHR, 16))
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
