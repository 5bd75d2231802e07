package io.squall.kernels.tornado;

import io.squall.kernels.reference.DeviceMath;
import uk.ac.manchester.tornado.api.KernelContext;
import uk.ac.manchester.tornado.api.types.arrays.ByteArray;
import uk.ac.manchester.tornado.api.types.arrays.FloatArray;
import uk.ac.manchester.tornado.api.types.arrays.IntArray;

/**
 * The TornadoVM device kernels: static methods in TornadoVM's {@link KernelContext} model that the
 * executor compiles for its device (OpenCL C or PTX). Each reads its sizes from an {@link IntArray}
 * of parameters uploaded with every launch, so one compiled kernel serves every batch shape; threads
 * past the end of the work return early. Reductions (dot products, sums of squares, softmax maxima
 * and sums) run in work-group local memory of {@link #LOCAL} floats, the work-group size being a
 * power of two no larger. The scalar math is {@link DeviceMath}, shared with the reference kernels.
 *
 * <p>Weights are GGML blocks in a {@link ByteArray} arena, read in place: an F16 value or a Q8_0/Q4_0
 * scale is decoded from its two bytes with integer arithmetic (no half-precision types on the
 * device). F32 weights live in a {@link FloatArray} arena, as devices cannot reinterpret bytes.
 */
public final class DeviceKernels {

    /** Local-memory floats per work-group; the executor's work-group size never exceeds it. */
    public static final int LOCAL = 128;

    /** Ints of parameters before the first matrix's entry in a matmul's parameter array. */
    public static final int MATMUL_HEADER = 3;
    /** Ints per matrix in a matmul's parameters: rows, weight byte offset, output offset, first global row. */
    public static final int MATMUL_ENTRY = 4;

    private DeviceKernels() {
    }

    /** Sums {@code value} over the work-group; every thread gets the total. */
    private static float groupSum(KernelContext context, float[] scratch, float value) {
        int lid = context.localIdx;
        scratch[lid] = value;
        context.localBarrier();
        for (int stride = context.localGroupSizeX / 2; stride > 0; stride >>= 1) {
            if (lid < stride) {
                scratch[lid] += scratch[lid + stride];
            }
            context.localBarrier();
        }
        float total = scratch[0];
        context.localBarrier();
        return total;
    }

    /** The maximum of {@code value} over the work-group; every thread gets it. */
    private static float groupMax(KernelContext context, float[] scratch, float value) {
        int lid = context.localIdx;
        scratch[lid] = value;
        context.localBarrier();
        for (int stride = context.localGroupSizeX / 2; stride > 0; stride >>= 1) {
            if (lid < stride) {
                scratch[lid] = Math.max(scratch[lid], scratch[lid + stride]);
            }
            context.localBarrier();
        }
        float max = scratch[0];
        context.localBarrier();
        return max;
    }

    /**
     * Which matrix of a fused matmul global row {@code row} belongs to: the last entry whose first
     * global row is at most {@code row}.
     */
    private static int entryOf(IntArray p, int row) {
        int count = p.get(0);
        int entry = 0;
        for (int m = 1; m < count; m++) {
            if (p.get(MATMUL_HEADER + m * MATMUL_ENTRY + 3) <= row) {
                entry = m;
            }
        }
        return MATMUL_HEADER + entry * MATMUL_ENTRY;
    }

    /** Reduces the work-group's partial dot products and stores row {@code r} of entry {@code e} for batch row {@code b}. */
    private static void storeRow(KernelContext context, float[] scratch, float sum, FloatArray out, IntArray p, int e,
                                 int b, int r) {
        float total = groupSum(context, scratch, sum);
        if (context.localIdx == 0) {
            out.set(p.get(e + 2) + b * p.get(e) + r, total);
        }
    }

    /**
     * Fused F32 matmuls over one shared input: work-group {@code (g, b)} computes global row {@code g}
     * (of the matrices' stacked rows) for batch row {@code b}. Parameters: {@code [count, cols, batch,
     * then per matrix rows, weight offset, output offset, first global row]}, the weight offset in
     * elements of the arena ({@code float}s here, bytes for the other formats);
     * {@code out[offset + b·rows + r] = Σ_c W[r][c] · x[b·cols + c]}.
     */
    public static void matmulF32(KernelContext context, FloatArray w, FloatArray x, FloatArray out, IntArray p) {
        float[] scratch = context.allocateFloatLocalArray(LOCAL);
        int g = context.groupIdx;
        int b = context.groupIdy;
        int e = entryOf(p, g);
        int cols = p.get(1);
        int r = g - p.get(e + 3);
        int row = p.get(e + 1) + r * cols;
        int xBase = b * cols;
        float sum = 0f;
        for (int c = context.localIdx; c < cols; c += context.localGroupSizeX) {
            sum += w.get(row + c) * x.get(xBase + c);
        }
        storeRow(context, scratch, sum, out, p, e, b, r);
    }

    /** {@link #matmulF32} for F16 weights (2 bytes per element). */
    public static void matmulF16(KernelContext context, ByteArray w, FloatArray x, FloatArray out, IntArray p) {
        float[] scratch = context.allocateFloatLocalArray(LOCAL);
        int g = context.groupIdx;
        int b = context.groupIdy;
        int e = entryOf(p, g);
        int cols = p.get(1);
        int r = g - p.get(e + 3);
        int row = p.get(e + 1) + r * cols * 2;
        int xBase = b * cols;
        float sum = 0f;
        for (int c = context.localIdx; c < cols; c += context.localGroupSizeX) {
            sum += DeviceMath.halfToFloat(w.get(row + 2 * c), w.get(row + 2 * c + 1)) * x.get(xBase + c);
        }
        storeRow(context, scratch, sum, out, p, e, b, r);
    }

    /** {@link #matmulF32} for Q8_0 weights: per 34-byte block, {@code d · Σ_j qs[j] · x[j]}; one thread per block. */
    public static void matmulQ8_0(KernelContext context, ByteArray w, FloatArray x, FloatArray out, IntArray p) {
        float[] scratch = context.allocateFloatLocalArray(LOCAL);
        int g = context.groupIdx;
        int b = context.groupIdy;
        int e = entryOf(p, g);
        int cols = p.get(1);
        int blocks = cols / 32;
        int r = g - p.get(e + 3);
        int row = p.get(e + 1) + r * blocks * 34;
        int xBase = b * cols;
        float sum = 0f;
        for (int i = context.localIdx; i < blocks; i += context.localGroupSizeX) {
            int block = row + i * 34;
            int xi = xBase + i * 32;
            float part = 0f;
            for (int j = 0; j < 32; j++) {
                part += w.get(block + 2 + j) * x.get(xi + j);
            }
            sum += DeviceMath.halfToFloat(w.get(block), w.get(block + 1)) * part;
        }
        storeRow(context, scratch, sum, out, p, e, b, r);
    }

    /** {@link #matmulF32} for Q4_0 weights: per 18-byte block, {@code d · Σ_j (lo_j − 8)·x[j] + (hi_j − 8)·x[j+16]}. */
    public static void matmulQ4_0(KernelContext context, ByteArray w, FloatArray x, FloatArray out, IntArray p) {
        float[] scratch = context.allocateFloatLocalArray(LOCAL);
        int g = context.groupIdx;
        int b = context.groupIdy;
        int e = entryOf(p, g);
        int cols = p.get(1);
        int blocks = cols / 32;
        int r = g - p.get(e + 3);
        int row = p.get(e + 1) + r * blocks * 18;
        int xBase = b * cols;
        float sum = 0f;
        for (int i = context.localIdx; i < blocks; i += context.localGroupSizeX) {
            int block = row + i * 18;
            int xi = xBase + i * 32;
            float part = 0f;
            for (int j = 0; j < 16; j++) {
                int q = w.get(block + 2 + j) & 0xFF;
                // the 8 comes off in float: TornadoVM's OpenCL code keeps a zero-extended byte unsigned,
                // so ((q >> 4) - 8) would convert to float as an unsigned wrap-around
                part += ((q & 0x0F) - 8f) * x.get(xi + j) + ((q >> 4) - 8f) * x.get(xi + j + 16);
            }
            sum += DeviceMath.halfToFloat(w.get(block), w.get(block + 1)) * part;
        }
        storeRow(context, scratch, sum, out, p, e, b, r);
    }

    /**
     * RMS norm in place, one work-group per row: {@code x = x · rmsScale(Σx²) · weight}. Parameters
     * {@code [rows, dim]}; {@code eps} in {@code f[0]}.
     */
    public static void rmsnorm(KernelContext context, FloatArray x, FloatArray weight, IntArray p, FloatArray f) {
        float[] scratch = context.allocateFloatLocalArray(LOCAL);
        int row = context.groupIdx;
        int dim = p.get(1);
        int base = row * dim;
        float ss = 0f;
        for (int i = context.localIdx; i < dim; i += context.localGroupSizeX) {
            float v = x.get(base + i);
            ss += v * v;
        }
        float scale = DeviceMath.rmsScale(groupSum(context, scratch, ss), dim, f.get(0));
        for (int i = context.localIdx; i < dim; i += context.localGroupSizeX) {
            x.set(base + i, x.get(base + i) * scale * weight.get(i));
        }
    }

    /**
     * Rotary embedding in place, one thread per (row, head, pair). Parameters {@code [count, heads,
     * headDim, half, neox]} with {@code count = batch·heads·half}; {@code cos}/{@code sin} hold each
     * row's {@code half} angles, gathered by the host from the tables.
     */
    public static void rope(KernelContext context, FloatArray x, FloatArray cos, FloatArray sin, IntArray p) {
        int id = context.globalIdx;
        if (id >= p.get(0)) {
            return;
        }
        int heads = p.get(1);
        int half = p.get(3);
        int i = id % half;
        int bh = id / half;
        int b = bh / heads;
        int base = bh * p.get(2);
        int i0 = p.get(4) != 0 ? base + i : base + 2 * i;
        int i1 = p.get(4) != 0 ? i0 + half : i0 + 1;
        float c = cos.get(b * half + i);
        float s = sin.get(b * half + i);
        float x0 = x.get(i0);
        float x1 = x.get(i1);
        x.set(i0, x0 * c - x1 * s);
        x.set(i1, x0 * s + x1 * c);
    }

    /** SwiGLU, one thread per element: {@code gate_i = silu(gate_i) · up_i}. Parameters {@code [n]}. */
    public static void siluMul(KernelContext context, FloatArray gate, FloatArray up, IntArray p) {
        int i = context.globalIdx;
        if (i < p.get(0)) {
            gate.set(i, DeviceMath.silu(gate.get(i)) * up.get(i));
        }
    }

    /**
     * {@code acc_i += x[i mod period]}, one thread per element: the residual ({@code period = n}) and
     * the bias ({@code period = dim}). Parameters {@code [n, period]}.
     */
    public static void add(KernelContext context, FloatArray acc, FloatArray x, IntArray p) {
        int i = context.globalIdx;
        if (i < p.get(0)) {
            acc.set(i, acc.get(i) + x.get(i % p.get(1)));
        }
    }

    /** Stable softmax over {@code x[0..n)} by one work-group. Parameters {@code [n]}. */
    public static void softmax(KernelContext context, FloatArray x, IntArray p) {
        float[] scratch = context.allocateFloatLocalArray(LOCAL);
        int n = p.get(0);
        int lid = context.localIdx;
        int step = context.localGroupSizeX;
        float max = Float.NEGATIVE_INFINITY;
        for (int i = lid; i < n; i += step) {
            max = Math.max(max, x.get(i));
        }
        max = groupMax(context, scratch, max);
        float sum = 0f;
        for (int i = lid; i < n; i += step) {
            float e = (float) Math.exp(x.get(i) - max);
            x.set(i, e);
            sum += e;
        }
        float inv = 1f / groupSum(context, scratch, sum);
        for (int i = lid; i < n; i += step) {
            x.set(i, x.get(i) * inv);
        }
    }

    /** Writes staged floats into the KV mirror: {@code kv[index_i] = staged_i} for {@code i < p[0]}. */
    public static void scatter(KernelContext context, FloatArray kv, FloatArray staged, IntArray index, IntArray p) {
        int i = context.globalIdx;
        if (i < p.get(0)) {
            kv.set(index.get(i), staged.get(i));
        }
    }

    /**
     * Paged causal attention, one work-group per (query row, head), over the KV slots of the device
     * arena. Row {@code r} has its block table from entry {@code rows[3r]} of {@code tables}, sits at
     * position {@code rows[3r+1]} (attending to positions {@code 0..rows[3r+1]}) and has pages of
     * {@code rows[3r+2]} positions. Block {@code i}'s slot starts at {@code tables[rows[3r] + i]}: the
     * key plane {@code [kvDim][blockSize]} (element-major, as the host pages), then the value plane
     * {@code [blockSize][kvDim]}. Parameters {@code [heads, kvHeads, headDim, context]}, {@code f[0]}
     * the score scale; {@code scores} holds {@code context} floats per (row, head). Phases: scaled dot
     * products and their maximum, exponentials and their sum, then the weighted sum of the values.
     */
    public static void attention(KernelContext context, FloatArray q, FloatArray kv, IntArray tables, IntArray rows,
                                 FloatArray out, FloatArray scores, IntArray p, FloatArray f) {
        float[] scratch = context.allocateFloatLocalArray(LOCAL);
        int heads = p.get(0);
        int headDim = p.get(2);
        int kvDim = p.get(1) * headDim;
        int row = context.groupIdx / heads;
        int h = context.groupIdx % heads;
        int kvHead = h / (heads / p.get(1));
        int table = rows.get(3 * row);
        int last = rows.get(3 * row + 1);
        int blockSize = rows.get(3 * row + 2);
        int plane = blockSize * kvDim;
        int qBase = (row * heads + h) * headDim;
        int sBase = (row * heads + h) * p.get(3);
        int lid = context.localIdx;
        int step = context.localGroupSizeX;
        float scale = f.get(0);
        float max = Float.NEGATIVE_INFINITY;
        for (int t = lid; t <= last; t += step) {
            int column = tables.get(table + t / blockSize) + kvHead * headDim * blockSize + t % blockSize;
            float dot = 0f;
            for (int i = 0; i < headDim; i++) {
                dot += q.get(qBase + i) * kv.get(column + i * blockSize);
            }
            float s = dot * scale;
            scores.set(sBase + t, s);
            max = Math.max(max, s);
        }
        max = groupMax(context, scratch, max);
        float sum = 0f;
        for (int t = lid; t <= last; t += step) {
            float e = (float) Math.exp(scores.get(sBase + t) - max);
            scores.set(sBase + t, e);
            sum += e;
        }
        float inv = 1f / groupSum(context, scratch, sum);
        context.globalBarrier(); // every thread's exponentials, in global memory, before the weighted sum
        for (int i = lid; i < headDim; i += step) {
            float acc = 0f;
            for (int t = 0; t <= last; t++) {
                int at = tables.get(table + t / blockSize) + plane + (t % blockSize) * kvDim + kvHead * headDim + i;
                acc += scores.get(sBase + t) * kv.get(at);
            }
            out.set(qBase + i, acc * inv);
        }
    }
}
