package io.squall.functions.worker.local;

import io.squall.kernels.Kernels;
import io.squall.kernels.PagedKv;
import io.squall.kernels.WeightMatrix;
import io.squall.kernels.custom.CustomKernel;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Lets several schedulers share one {@link Kernels} pool, which runs one operation at a time: every
 * call holds a fair lock for its duration, so the forward passes of different workers interleave
 * operation by operation. Closing does nothing; the pool's owner closes it.
 */
public final class ExclusiveKernels implements Kernels {

    private final Kernels delegate;
    private final ReentrantLock lock = new ReentrantLock(true);

    public ExclusiveKernels(Kernels delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    @Override
    public String name() {
        return delegate.name();
    }

    @Override
    public boolean compiledAsTheyRun() {
        return delegate.compiledAsTheyRun();
    }

    @Override
    public void matmul(WeightMatrix w, float[] x, float[] out, int batch) {
        lock.lock();
        try {
            delegate.matmul(w, x, out, batch);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void matmulMany(WeightMatrix[] ws, float[] x, float[][] outs, int batch) {
        lock.lock();
        try {
            delegate.matmulMany(ws, x, outs, batch);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void dequantizeRow(WeightMatrix w, int row, float[] out, int offset) {
        lock.lock();
        try {
            delegate.dequantizeRow(w, row, out, offset);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void rmsnorm(float[] out, float[] x, float[] weight, int rows, int dim, float eps) {
        lock.lock();
        try {
            delegate.rmsnorm(out, x, weight, rows, dim, eps);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void rope(float[] x, int batch, int[] positions, int heads, int headDim, int rotaryDim, float[] cos,
                     float[] sin, boolean neox) {
        lock.lock();
        try {
            delegate.rope(x, batch, positions, heads, headDim, rotaryDim, cos, sin, neox);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void attention(float[] q, PagedKv kv, float[] out, int batch, int startPos, int heads, int kvHeads,
                          int headDim, float scale) {
        lock.lock();
        try {
            delegate.attention(q, kv, out, batch, startPos, heads, kvHeads, headDim, scale);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void attention(float[] q, float[] out, PagedKv[] kvs, int[] rows, int[] startPos, int sequences, int heads,
                          int kvHeads, int headDim, float scale) {
        lock.lock();
        try {
            delegate.attention(q, out, kvs, rows, startPos, sequences, heads, kvHeads, headDim, scale);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void siluMul(float[] gate, float[] up, int n) {
        lock.lock();
        try {
            delegate.siluMul(gate, up, n);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void add(float[] acc, float[] x, int n) {
        lock.lock();
        try {
            delegate.add(acc, x, n);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void addBias(float[] x, float[] bias, int rows, int dim) {
        lock.lock();
        try {
            delegate.addBias(x, bias, rows, dim);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void softmax(float[] x, int offset, int n) {
        lock.lock();
        try {
            delegate.softmax(x, offset, n);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void prepare(List<WeightMatrix> weights) {
        lock.lock();
        try {
            delegate.prepare(weights);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void release(List<WeightMatrix> weights) {
        lock.lock();
        try {
            delegate.release(weights);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void run(CustomKernel kernel, float[] x, float[] y, int n) {
        lock.lock();
        try {
            delegate.run(kernel, x, y, n);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        // the pool belongs to whoever created it
    }
}
