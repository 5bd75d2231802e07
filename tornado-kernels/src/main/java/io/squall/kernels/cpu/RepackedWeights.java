package io.squall.kernels.cpu;

import io.squall.kernels.WeightMatrix;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The CPU executor's own copies of the weights it was {@linkplain io.squall.kernels.Kernels#prepare prepared} with, in
 * layouts its kernels read faster than GGML's: Q4_0, Q4_K and Q6_K with eight rows interleaved ({@link
 * InterleavedRows}), where those layouts are supported. One activation row reads the copy; larger batches decode the
 * GGML rows as before, since decoding rows from the interleaved layout made a 16-stream Q4_0 step 8–10% slower. So such
 * a matrix is held twice, its file's pages and this copy (1.1× its size for Q4_0, 1.33× for Q4_K and 1.31× for Q6_K):
 * about 2.1–2.3× the file in memory once both are in use ({@code -Dsquall.kernels.repack=false} keeps one). Matrices are found by identity: the engine multiplies by the very objects it prepared.
 *
 * <p>Confined to the thread that drives the executor; a copy lives until its matrix is {@linkplain #release released}
 * or the executor closes, each in an arena of its own.
 */
final class RepackedWeights implements AutoCloseable {

    /** Rows repacked per parallel chunk: a multiple of the interleaved groups. */
    private static final int FILL_ROWS = 64 * InterleavedRows.ROWS;

    /** {@code -Dsquall.kernels.repack=false}: every matrix stays in its GGML layout (for A/B runs). */
    static final boolean ENABLED = !"false".equals(System.getProperty("squall.kernels.repack"));

    private final Map<WeightMatrix, Copy> byMatrix = new IdentityHashMap<>();

    /** A matrix's interleaved copy and the arena that holds it. */
    private record Copy(InterleavedRows rows, Arena arena) {
    }

    /** Repacks the matrices of {@code weights} that have a faster layout and are not yet repacked, across {@code pool}. */
    void prepare(List<WeightMatrix> weights, WorkerPool pool) {
        if (!ENABLED || !InterleavedRows.SUPPORTED) {
            return;
        }
        List<WeightMatrix> sources = new ArrayList<>();
        List<InterleavedRows> copies = new ArrayList<>();
        for (WeightMatrix w : weights) {
            if (InterleavedRows.holds(w.type()) && !byMatrix.containsKey(w)) {
                Arena arena = Arena.ofShared(); // shared: the pool's threads fill it
                InterleavedRows copy = InterleavedRows.allocate(w, arena);
                byMatrix.put(w, new Copy(copy, arena));
                sources.add(w);
                copies.add(copy);
            }
        }
        if (sources.isEmpty()) {
            return;
        }
        int[] firstChunk = new int[sources.size() + 1];
        for (int i = 0; i < sources.size(); i++) {
            firstChunk[i + 1] = firstChunk[i] + Math.ceilDiv(sources.get(i).rows(), FILL_ROWS);
        }
        pool.run((chunk, worker) -> {
            int i = 0;
            while (chunk >= firstChunk[i + 1]) {
                i++;
            }
            WeightMatrix w = sources.get(i);
            int first = (chunk - firstChunk[i]) * FILL_ROWS;
            copies.get(i).fill(w, first, Math.min(w.rows(), first + FILL_ROWS));
        }, firstChunk[sources.size()]);
    }

    /** The interleaved copy of {@code w}, or null if it has none. */
    InterleavedRows interleaved(WeightMatrix w) {
        Copy copy = InterleavedRows.holds(w.type()) ? byMatrix.get(w) : null;
        return copy == null ? null : copy.rows();
    }

    /** Frees the copies of {@code weights}, which will not be multiplied by again. */
    void release(List<WeightMatrix> weights) {
        for (WeightMatrix w : weights) {
            Copy copy = byMatrix.remove(w);
            if (copy != null) {
                copy.arena().close();
            }
        }
    }

    @Override
    public void close() {
        byMatrix.values().forEach(copy -> copy.arena().close());
        byMatrix.clear();
    }
}
