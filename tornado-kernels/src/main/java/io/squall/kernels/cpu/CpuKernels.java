package io.squall.kernels.cpu;

import io.squall.kernels.KernelArguments;
import io.squall.kernels.Kernels;
import io.squall.kernels.PagedKv;
import io.squall.kernels.WeightMatrix;
import io.squall.kernels.reference.RopeKernels;

import java.util.List;
import java.util.Objects;

/**
 * {@link Kernels} on the CPU: Vector API loops at {@link Lanes#F} across a fixed {@link WorkerPool}.
 * Matmuls and attention always run in parallel; RMS norm and SwiGLU when their arrays exceed
 * {@link RowsTask#PARALLEL_THRESHOLD} elements; the rest on the calling thread.
 *
 * <p>Thread-safety: one forward pass at a time (calls must not overlap); the calling thread takes
 * part in every parallel loop. Steady state allocates nothing: task objects and per-worker buffers
 * are reused and only grow.
 */
public final class CpuKernels implements Kernels {

    /** How long an idle worker spins for the next kernel before parking, in nanoseconds. */
    private static final long SPIN_NANOS = 200_000;

    private final WorkerPool pool;
    private final MatmulTask matmul;
    private final TiledAttentionTask attention;
    private final RepackedWeights repacked = new RepackedWeights();
    private final RowsTask rowsTask = new RowsTask();
    private final WeightMatrix[] single = new WeightMatrix[1];
    private final float[][] singleOut = new float[1][];
    private final PagedKv[] singleKv = new PagedKv[1];
    private final int[] singleRows = new int[1];
    private final int[] singleStart = new int[1];

    /** With one thread per available processor. */
    public CpuKernels() {
        this(Runtime.getRuntime().availableProcessors());
    }

    /**
     * @param threads threads per parallel loop, including the caller; at least 1
     * @throws UnsupportedOperationException if this machine's vectors are not 256 or 512 bits wide
     */
    public CpuKernels(int threads) {
        if (!isSupported()) {
            throw new UnsupportedOperationException("the CPU kernels need 256- or 512-bit vectors, this JVM offers "
                    + Lanes.F.vectorBitSize());
        }
        VectorHelperInlining.ensureInstalled();
        this.pool = new WorkerPool(threads, SPIN_NANOS);
        this.matmul = new MatmulTask(threads, repacked);
        this.attention = new TiledAttentionTask(threads);
    }

    /** Whether the Vector API's preferred species suits these kernels (AVX2 or AVX-512 class hardware). */
    public static boolean isSupported() {
        return Lanes.supported();
    }

    @Override
    public String name() {
        return "cpu-vector(" + pool.threads() + " threads, " + Lanes.F.vectorBitSize() + "-bit)";
    }

    @Override
    public void matmul(WeightMatrix w, float[] x, float[] out, int batch) {
        KernelArguments.matmul(w, x, out, batch);
        single[0] = w;
        singleOut[0] = out;
        try {
            pool.run(matmul, matmul.prepare(single, x, singleOut, batch));
        } finally {
            single[0] = null;
            singleOut[0] = null;
            matmul.clear();
        }
    }

    @Override
    public void matmulMany(WeightMatrix[] ws, float[] x, float[][] outs, int batch) {
        KernelArguments.matmulMany(ws, x, outs, batch);
        try {
            pool.run(matmul, matmul.prepare(ws, x, outs, batch));
        } finally {
            matmul.clear();
        }
    }

    /** Repacks the Q4_0, Q4_K and Q6_K matrices among {@code weights} for this executor's kernels ({@link RepackedWeights}). */
    @Override
    public void prepare(List<WeightMatrix> weights) {
        Objects.requireNonNull(weights, "weights");
        repacked.prepare(weights, pool);
    }

    @Override
    public void release(List<WeightMatrix> weights) {
        Objects.requireNonNull(weights, "weights");
        repacked.release(weights);
    }

    @Override
    public void dequantizeRow(WeightMatrix w, int row, float[] out, int offset) {
        KernelArguments.dequantizeRow(w, row, out, offset);
        RowDecoder.decode(w.type(), w.data(), row * w.rowBytes(), w.cols(), out, offset);
    }

    @Override
    public void rmsnorm(float[] out, float[] x, float[] weight, int rows, int dim, float eps) {
        KernelArguments.rows(out, x, weight, rows, dim);
        if ((long) rows * dim < RowsTask.PARALLEL_THRESHOLD || rows == 1) {
            for (int row = 0; row < rows; row++) {
                VectorMath.rmsnorm(out, x, weight, row * dim, dim, eps);
            }
            return;
        }
        try {
            pool.run(rowsTask, rowsTask.rmsnorm(out, x, weight, rows, dim, eps, pool.threads()));
        } finally {
            rowsTask.clear();
        }
    }

    @Override
    public void rope(float[] x, int batch, int[] positions, int heads, int headDim, int rotaryDim,
                     float[] cos, float[] sin, boolean neox) {
        KernelArguments.rope(x, batch, positions, heads, headDim, rotaryDim, cos, sin);
        RopeKernels.rope(x, batch, positions, heads, headDim, rotaryDim, cos, sin, neox);
    }

    @Override
    public void attention(float[] q, PagedKv kv, float[] out, int batch, int startPos, int heads, int kvHeads,
                          int headDim, float scale) {
        KernelArguments.attention(q, kv, out, batch, startPos, heads, kvHeads, headDim);
        singleKv[0] = kv;
        singleRows[0] = batch;
        singleStart[0] = startPos;
        try {
            pool.run(attention, attention.prepare(q, out, singleKv, singleRows, singleStart, 1, heads, kvHeads, headDim,
                    scale));
        } finally {
            singleKv[0] = null;
            attention.clear();
        }
    }

    @Override
    public void attention(float[] q, float[] out, PagedKv[] kvs, int[] rows, int[] startPos, int sequences, int heads,
                          int kvHeads, int headDim, float scale) {
        KernelArguments.attention(q, out, kvs, rows, startPos, sequences, heads, kvHeads, headDim);
        try {
            pool.run(attention, attention.prepare(q, out, kvs, rows, startPos, sequences, heads, kvHeads, headDim,
                    scale));
        } finally {
            attention.clear();
        }
    }

    @Override
    public void siluMul(float[] gate, float[] up, int n) {
        KernelArguments.elements(n, gate, up);
        if (n < RowsTask.PARALLEL_THRESHOLD) {
            VectorMath.siluMul(gate, up, 0, n);
            return;
        }
        try {
            pool.run(rowsTask, rowsTask.siluMul(gate, up, n, pool.threads()));
        } finally {
            rowsTask.clear();
        }
    }

    @Override
    public void add(float[] acc, float[] x, int n) {
        KernelArguments.elements(n, acc, x);
        VectorMath.add(acc, 0, x, 0, n);
    }

    @Override
    public void addBias(float[] x, float[] bias, int rows, int dim) {
        KernelArguments.rows(x, x, bias, rows, dim);
        for (int row = 0; row < rows; row++) {
            VectorMath.add(x, row * dim, bias, 0, dim);
        }
    }

    @Override
    public void softmax(float[] x, int offset, int n) {
        KernelArguments.range(x, offset, n);
        if (n > 0) {
            VectorMath.softmax(x, offset, n);
        }
    }

    @Override
    public void close() {
        pool.close();
        repacked.close();
    }
}
