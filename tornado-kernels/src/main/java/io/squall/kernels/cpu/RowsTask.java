package io.squall.kernels.cpu;

/**
 * Row-wise RMS norm or element-wise SwiGLU split into contiguous ranges, used when the arrays are
 * large enough (prefill batches) for a pool dispatch to pay off. Confined to the thread owning the
 * enclosing {@link CpuKernels}.
 */
final class RowsTask implements ParallelTask {

    /** Below this many elements an operation runs on the calling thread. */
    static final int PARALLEL_THRESHOLD = 1 << 15;

    private boolean swiglu;
    private float[] a;
    private float[] b;
    private float[] weight;
    private int rows;
    private int dim;
    private float eps;
    private int unitsPerChunk;

    /** Prepares {@code rows} RMS-norm rows of {@code dim}; returns the chunk count. */
    int rmsnorm(float[] out, float[] x, float[] weight, int rows, int dim, float eps, int threads) {
        this.swiglu = false;
        this.a = out;
        this.b = x;
        this.weight = weight;
        this.rows = rows;
        this.dim = dim;
        this.eps = eps;
        this.unitsPerChunk = Math.ceilDiv(rows, threads);
        return Math.ceilDiv(rows, unitsPerChunk);
    }

    /** Prepares SwiGLU over {@code n} elements; returns the chunk count. */
    int siluMul(float[] gate, float[] up, int n, int threads) {
        this.swiglu = true;
        this.a = gate;
        this.b = up;
        this.rows = n;
        this.unitsPerChunk = Math.ceilDiv(Math.ceilDiv(n, threads), Lanes.L) * Lanes.L;
        return Math.ceilDiv(n, unitsPerChunk);
    }

    /** Drops the references to the last call's operands. */
    void clear() {
        a = null;
        b = null;
        weight = null;
    }

    @Override
    public void run(int chunk, int worker) {
        int from = chunk * unitsPerChunk;
        int to = Math.min(rows, from + unitsPerChunk);
        if (swiglu) {
            VectorMath.siluMul(a, b, from, to);
        } else {
            for (int row = from; row < to; row++) {
                VectorMath.rmsnorm(a, b, weight, row * dim, dim, eps);
            }
        }
    }
}
