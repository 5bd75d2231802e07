package io.squall.kernels.reference;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** Causal grouped-query attention over a KV cache reached through a block table. */
public final class AttentionKernels {

    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private AttentionKernels() {
    }

    /**
     * For query row {@code b} (position {@code p = startPos + b}) and head {@code h} reading KV head
     * {@code g = h / (heads/kvHeads)}: {@code s_t = scale · q·k_t} for {@code t ≤ p}, {@code a =
     * softmax(s)}, {@code out = Σ_t a_t · v_t} (Vaswani et al., eq. 1). Position {@code t} sits in page
     * {@code blockTable[t / blockSize]}, slot {@code t % blockSize}; a page holds this layer's key plane
     * {@code [kvHeads·headDim][slot]} at byte {@code keyOffset} and value plane
     * {@code [slot][kvHeads·headDim]} at {@code valueOffset}, little-endian F32 (see {@code PagedKv}). {@code scores} is scratch of at least {@code batch · heads · (startPos + batch)}
     * floats, one stripe per (b, h), so the parallel loops {@code b} and {@code h} never share it.
     */
    public static void attention(float[] q, MemorySegment pages, long pageBytes, int blockSize, long keyOffset,
                                      long valueOffset, int[] blockTable, float[] out, float[] scores, int batch,
                                      int startPos, int heads, int kvHeads, int headDim, float scale) {
        int group = heads / kvHeads;
        long rowBytes = (long) kvHeads * headDim * Float.BYTES;
        int context = startPos + batch;
        for (int b = 0; b < batch; b++) {
            for (int h = 0; h < heads; h++) {
                int qBase = (b * heads + h) * headDim;
                long headBytes = (long) (h / group) * headDim * Float.BYTES;
                int sBase = (b * heads + h) * context;
                int last = startPos + b;
                float max = Float.NEGATIVE_INFINITY;
                for (int t = 0; t <= last; t++) {
                    long column = blockTable[t / blockSize] * pageBytes + keyOffset
                            + ((long) (h / group) * headDim * blockSize + t % blockSize) * Float.BYTES;
                    float dot = 0f;
                    for (int i = 0; i < headDim; i++) {
                        dot += q[qBase + i] * pages.get(F32, column + (long) i * blockSize * Float.BYTES);
                    }
                    scores[sBase + t] = dot * scale;
                    max = Math.max(max, dot * scale);
                }
                float sum = 0f;
                for (int t = 0; t <= last; t++) {
                    float e = (float) Math.exp(scores[sBase + t] - max);
                    scores[sBase + t] = e;
                    sum += e;
                }
                float inv = 1f / sum;
                for (int i = 0; i < headDim; i++) {
                    float acc = 0f;
                    for (int t = 0; t <= last; t++) {
                        long row = blockTable[t / blockSize] * pageBytes + valueOffset + (t % blockSize) * rowBytes + headBytes;
                        acc += scores[sBase + t] * pages.get(F32, row + (long) i * Float.BYTES);
                    }
                    out[qBase + i] = acc * inv;
                }
            }
        }
    }
}
