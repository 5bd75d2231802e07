package io.squall.kernels.cpu;

import io.squall.kernels.GgmlType;
import io.squall.kernels.WeightMatrix;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A quantized matrix repacked so that {@link #ROWS} rows share every vector, as llama.cpp's CPU "repack" buffers hold
 * Q4_0 and Q4_K on AVX2: one activation row is then multiplied into eight output rows at once, each row's integer sum
 * ending in its own lane of a 16-bit vector whose lane pairs hold the row's weights, the activations broadcast in pairs
 * ({@link QuantizedActivations#chunkPairs}). Q4_0 and Q4_K as {@link InterleavedNibbles}, Q6_K as {@link
 * InterleavedBytes}. One-row products run in chunks of four groups of rows a quarter of the matrix apart
 * ({@link #chunks}), so a thread running consecutive chunks reads four streams of weights at once. Immutable once
 * filled; thread-safe.
 */
abstract sealed class InterleavedRows permits InterleavedNibbles, InterleavedBytes {

    /** Rows sharing one vector. */
    static final int ROWS = 8;
    /** Groups of rows a chunk of one-row products reads, from as many parts of the matrix ({@link #multiply}). */
    static final int STREAMS = 4;
    private static final VectorSpecies<Float> F8 = FloatVector.SPECIES_256;

    /**
     * Whether one activation row takes these layouts here: where the activations are rounded to 8 bits (256-bit
     * vectors and up, {@link IntDots#SUPPORTED}). The kernels are 256 bits wide on 512-bit machines too, where they
     * replaced the GGML layout's 512-bit dots (and Q4_0's float dot): a decode step's matmuls took 1.4–1.9× less time
     * (docs/BENCHMARKS.md).
     */
    static final boolean SUPPORTED = QuantizedActivations.Scheme.of(GgmlType.Q4_0) == QuantizedActivations.Scheme.Q8_0;

    /** Rows of the matrix. */
    final int rows;
    /** Bytes of one group of rows. */
    final long groupBytes;
    /** The copy: group after group. */
    final MemorySegment data;

    /**
     * Takes memory of {@code arena} for the groups of {@code rows} rows, zeroed: rows not yet {@link #fill filled}
     * (and the last group's padding) read as zero.
     */
    InterleavedRows(int rows, long groupBytes, Arena arena) {
        this.rows = rows;
        this.groupBytes = groupBytes;
        this.data = arena.allocate(Math.ceilDiv(rows, ROWS) * groupBytes, 64);
    }

    /** Whether {@code type} has an interleaved layout: Q4_0, Q4_K and Q6_K. */
    static boolean holds(GgmlType type) {
        return InterleavedNibbles.holds(type) || type == GgmlType.Q6_K;
    }

    /** An empty copy of {@code w} ({@link #holds}) in memory of {@code arena}. */
    static InterleavedRows allocate(WeightMatrix w, Arena arena) {
        return w.type() == GgmlType.Q6_K ? InterleavedBytes.allocate(w, arena) : InterleavedNibbles.allocate(w, arena);
    }

    /** Repacks rows {@code [first, end)} of {@code w}, the matrix this copy was allocated for. */
    abstract void fill(WeightMatrix w, int first, int end);

    /**
     * Chunks of one-row products this matrix splits into: {@code q = ⌈groups / 4⌉}, chunk {@code k} holding groups
     * {@code k}, {@code k + q}, {@code k + 2q} and {@code k + 3q} (those that exist).
     */
    final int chunks() {
        return Math.ceilDiv(Math.ceilDiv(rows, ROWS), STREAMS);
    }

    /**
     * Chunk {@code k} ({@link #chunks}) of this matrix times one activation row {@code a}, rounded as llama.cpp rounds
     * it for the matrix's format, with its {@link QuantizedActivations#chunkPairs}: rows of the chunk's groups into
     * {@code out}.
     */
    abstract void multiply(QuantizedActivations a, float[] out, int k);

    /**
     * Group {@code s} of chunk {@code k}'s four ({@code s} in 0..3); a group past the matrix's last (the last chunks of
     * a matrix not a multiple of four groups) is group {@code k} again, which {@link #store} leaves unstored.
     */
    final int group(int k, int s) {
        return MatmulTask.streamIndex(k, s, chunks(), Math.ceilDiv(rows, ROWS));
    }

    /**
     * Stores group {@code g}'s eight sums into {@code out}, unless it repeats group {@code g0} of the same chunk;
     * only a matrix's last group can hold padding rows, which a mask leaves out.
     */
    static void store(FloatVector acc, float[] out, int rows, int g, int g0, boolean first) {
        if (!first && g == g0) {
            return;
        }
        int r = g * ROWS;
        if (r + ROWS <= rows) {
            acc.intoArray(out, r);
        } else {
            acc.intoArray(out, r, VectorMask.fromLong(F8, (1L << (rows - r)) - 1));
        }
    }
}
