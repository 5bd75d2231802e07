package io.squall.kernels;

import io.squall.kernels.custom.CustomKernel;

import java.util.List;
import java.util.Objects;

/**
 * The compute operations a transformer forward pass needs, over flat row-major {@code float[]}
 * activations. Every operation takes a {@code batch} of rows so that one pass over a weight matrix
 * serves many tokens (prefill) or many sequences (continuous batching).
 *
 * <p>Implementations: the reference (the TornadoVM-style static kernels run as plain Java, the
 * semantics every other implementation must match), the CPU executor (Vector API across a fixed
 * thread pool) and, in builds made with a TornadoVM SDK, the TornadoVM executor (the kernels compiled
 * for a device, weights and KV pages resident there). Obtain one with {@link #best()}.
 *
 * <p>Device executors may keep copies of the KV pages they read. So between two {@code attention}
 * calls, the host writes a sequence's pages only at the positions the next call adds (the keys and
 * values of its new rows), or before the page first appears in a block table (pages filled by
 * onboarding or a remote prefill); a page already read through one block table is not rewritten
 * under that same table.
 *
 * <p>Thread-safety: an instance may be used by one forward pass at a time; calls block until the
 * result is written. Arrays must be large enough for the stated extents; extents are not re-checked
 * on every call beyond what the JVM does.
 */
public interface Kernels extends AutoCloseable {

    /** A short name for logs, such as {@code "cpu-vector(2 threads, 512-bit)"}. */
    String name();

    /**
     * Whether this executor's kernels are Java code that HotSpot compiles as it runs them (the CPU and reference
     * executors), so that running them on small inputs first makes them fast on the real ones; TornadoVM's are
     * compiled for the buffers they are built with, so small inputs first would only compile them twice.
     */
    default boolean compiledAsTheyRun() {
        return true;
    }

    /**
     * {@code out[b·rows + r] = Σ_c W[r][c] · x[b·cols + c]} for {@code b < batch}, {@code r < rows}:
     * each row of the weight is read once for the whole batch.
     */
    void matmul(WeightMatrix w, float[] x, float[] out, int batch);

    /**
     * {@link #matmul} for several matrices that share the same input (Q, K and V; gate and up) in a
     * single parallel pass: {@code outs[i]} receives {@code ws[i] · x}.
     */
    void matmulMany(WeightMatrix[] ws, float[] x, float[][] outs, int batch);

    /** Dequantizes row {@code row} of {@code w} into {@code out[offset .. offset+cols)} (embedding lookup). */
    void dequantizeRow(WeightMatrix w, int row, float[] out, int offset);

    /**
     * RMS norm of each of {@code rows} rows of length {@code dim}:
     * {@code out = x / sqrt(mean(x²) + eps) · weight}. {@code out} may be {@code x}.
     */
    void rmsnorm(float[] out, float[] x, float[] weight, int rows, int dim, float eps);

    /**
     * Rotary position embedding in place over {@code x}, laid out {@code [batch][heads][headDim]};
     * row {@code b} is at position {@code positions[b]}. Only the first {@code rotaryDim} dimensions
     * of each head rotate. {@code cos}/{@code sin} are tables {@code [position][rotaryDim/2]}.
     * {@code neox} rotates pairs {@code (i, i + rotaryDim/2)}; otherwise adjacent pairs {@code (2i, 2i+1)}.
     */
    void rope(float[] x, int batch, int[] positions, int heads, int headDim, int rotaryDim,
              float[] cos, float[] sin, boolean neox);

    /**
     * Causal multi-head attention with grouped-query KV for one sequence. {@code q} and {@code out} are
     * {@code [batch][heads·headDim]}; the keys and values of positions {@code 0 .. startPos+batch-1}
     * are reached through {@code kv}'s block table (a contiguous cache is a single page). Row {@code b}
     * sits at position {@code startPos+b} and attends to positions {@code 0 .. startPos+b}; query head
     * {@code h} reads KV head {@code h / (heads/kvHeads)}. {@code scale} multiplies the scores (usually
     * {@code 1/sqrt(headDim)}).
     */
    void attention(float[] q, PagedKv kv, float[] out, int batch, int startPos, int heads, int kvHeads,
                   int headDim, float scale);

    /**
     * {@link #attention} for {@code sequences} sequences in one call, so that a batch of decoding
     * sequences shares one parallel loop instead of one small loop each: sequence {@code s} owns the
     * next {@code rows[s]} rows of {@code q} and {@code out} (packed in sequence order), reaches its
     * keys and values through {@code kvs[s]}, and its first row sits at position {@code startPos[s]}.
     * This default runs the sequences one after the other through scratch copies.
     */
    default void attention(float[] q, float[] out, PagedKv[] kvs, int[] rows, int[] startPos, int sequences,
                           int heads, int kvHeads, int headDim, float scale) {
        KernelArguments.attention(q, out, kvs, rows, startPos, sequences, heads, kvHeads, headDim);
        int qDim = heads * headDim;
        int offset = 0;
        for (int s = 0; s < sequences; s++) {
            int n = rows[s] * qDim;
            float[] part = java.util.Arrays.copyOfRange(q, offset, offset + n);
            float[] partOut = new float[n];
            attention(part, kvs[s], partOut, rows[s], startPos[s], heads, kvHeads, headDim, scale);
            System.arraycopy(partOut, 0, out, offset, n);
            offset += n;
        }
    }

    /** {@code gate[i] = silu(gate[i]) · up[i]} for {@code i < n}: the SwiGLU activation. */
    void siluMul(float[] gate, float[] up, int n);

    /** {@code acc[i] += x[i]} for {@code i < n}: the residual connection. */
    void add(float[] acc, float[] x, int n);

    /** Adds {@code bias} to each of {@code rows} rows of length {@code dim}. */
    void addBias(float[] x, float[] bias, int rows, int dim);

    /** Softmax in place over {@code x[offset .. offset+n)}. */
    void softmax(float[] x, int offset, int n);

    /**
     * Tells the executor which weights the coming forward passes multiply by, so that a device executor
     * can upload them once and keep them resident, and the CPU executor can keep copies in layouts its kernels
     * read faster (Q4_0, Q4_K and Q6_K with eight rows interleaved, for one activation row). Optional for callers (a matmul on a weight never
     * prepared still works, at the cost of uploading it then, or in the weight's own layout) and idempotent:
     * weights already prepared are skipped. The matrices must not change afterwards. The reference executor
     * ignores it.
     */
    default void prepare(List<WeightMatrix> weights) {
        Objects.requireNonNull(weights, "weights");
    }

    /**
     * Tells the executor that {@code weights}, which it was {@linkplain #prepare prepared} with, will not be multiplied
     * by again: the CPU executor frees its copies of them. Matrices never prepared are skipped. An executor that keeps
     * its weights in arenas it only appends to (TornadoVM's) keeps them until it closes; the reference executor has
     * nothing to free.
     */
    default void release(List<WeightMatrix> weights) {
        Objects.requireNonNull(weights, "weights");
    }

    /**
     * Runs a user's {@link CustomKernel} over {@code x[0..n)} and {@code y[0..n)} on this executor: the
     * host executors run its CPU reference, the TornadoVM executor compiles its TornadoVM-style kernel
     * for the device (and reports, once, when it has to run the reference instead).
     */
    default void run(CustomKernel kernel, float[] x, float[] y, int n) {
        Objects.requireNonNull(kernel, "kernel");
        KernelArguments.elements(n, x, y);
        kernel.reference().apply(x, y, n);
    }

    /** Releases the thread pool, if any. */
    @Override
    void close();

    /**
     * A new instance of the implementation {@code squall.kernels} names, by default the fastest this
     * JVM can run. The first call logs the choice. The caller owns the instance and must
     * {@link #close()} it.
     *
     * <p>System properties: {@code squall.kernels} = {@code auto} (default), {@code cpu},
     * {@code reference} or {@code tornadovm}; {@code squall.kernels.threads} = threads of the CPU
     * executor (default: one per available processor). {@code auto} picks TornadoVM when the JVM runs
     * with TornadoVM's runtime, this build has its executor and a device answers; else the CPU
     * executor; else the reference. One log line says which and why.
     *
     * @throws IllegalStateException if {@code squall.kernels} names an implementation that cannot run here
     */
    static Kernels best() {
        return KernelsProvider.create();
    }
}
