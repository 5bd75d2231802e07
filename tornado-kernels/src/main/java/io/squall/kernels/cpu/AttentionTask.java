package io.squall.kernels.cpu;

import io.squall.kernels.PagedKv;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Causal GQA attention, one chunk per (query row, head), reading K and V rows in place through the
 * block table, with a per-worker score buffer grown on the calling thread before dispatch. Same
 * formula as {@code AttentionKernels.attention}. Confined to the thread owning the enclosing
 * {@link CpuKernels}.
 */
final class AttentionTask implements ParallelTask {

    private final float[][] scores;
    private float[] q;
    private PagedKv kv;
    private MemorySegment pages;
    private float[] out;
    private int startPos;
    private int heads;
    private int group;
    private long rowBytes;
    private int headDim;
    private float scale;

    AttentionTask(int threads) {
        this.scores = new float[threads][0];
    }

    /** Sets the operands of the next run and returns its chunk count, {@code batch · heads}. */
    int prepare(float[] q, PagedKv kv, float[] out, int batch, int startPos, int heads, int kvHeads, int headDim,
                float scale) {
        this.q = q;
        this.kv = kv;
        this.pages = kv.pages();
        this.out = out;
        this.startPos = startPos;
        this.heads = heads;
        this.group = heads / kvHeads;
        this.rowBytes = (long) kvHeads * headDim * Float.BYTES;
        this.headDim = headDim;
        this.scale = scale;
        int context = startPos + batch;
        for (int t = 0; t < scores.length; t++) {
            if (scores[t].length < context) {
                scores[t] = new float[Math.max(context, 2 * scores[t].length)];
            }
        }
        return batch * heads;
    }

    /** Drops the references to the last call's operands. */
    void clear() {
        q = null;
        kv = null;
        pages = null;
        out = null;
    }

    @Override
    public void run(int chunk, int worker) {
        int b = chunk / heads;
        int h = chunk % heads;
        float[] s = scores[worker];
        int qBase = chunk * headDim;
        long headBytes = (long) (h / group) * headDim * Float.BYTES;
        int last = startPos + b;
        for (int t = 0; t <= last; t++) {
            s[t] = VectorMath.dot(q, qBase, pages, kv.keyRow(t, rowBytes) + headBytes, headDim) * scale;
        }
        VectorMath.softmax(s, 0, last + 1);
        Arrays.fill(out, qBase, qBase + headDim, 0f);
        for (int t = 0; t <= last; t++) {
            VectorMath.axpy(out, qBase, s[t], pages, kv.valueRow(t, rowBytes) + headBytes, headDim);
        }
    }
}
