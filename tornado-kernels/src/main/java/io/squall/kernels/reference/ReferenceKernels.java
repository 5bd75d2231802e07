package io.squall.kernels.reference;

import io.squall.kernels.KernelArguments;
import io.squall.kernels.Kernels;
import io.squall.kernels.PagedKv;
import io.squall.kernels.WeightMatrix;
import io.squall.kernels.format.GgmlCodec;
import io.squall.kernels.format.IQ4_NLCodec;
import io.squall.kernels.format.NibbleBlock;

/**
 * {@link Kernels} as the static reference kernels run single-threaded on the calling thread: the
 * semantics, and the fallback when the Vector API is missing. Not thread-safe: it keeps one growing
 * attention scratch array.
 */
public final class ReferenceKernels implements Kernels {

    private float[] scores = new float[0];

    @Override
    public String name() {
        return "reference(1 thread, scalar)";
    }

    @Override
    public void matmul(WeightMatrix w, float[] x, float[] out, int batch) {
        KernelArguments.matmul(w, x, out, batch);
        run(w, x, out, batch);
    }

    @Override
    public void matmulMany(WeightMatrix[] ws, float[] x, float[][] outs, int batch) {
        KernelArguments.matmulMany(ws, x, outs, batch);
        for (int i = 0; i < ws.length; i++) {
            run(ws[i], x, outs[i], batch);
        }
    }

    private static void run(WeightMatrix w, float[] x, float[] out, int batch) {
        switch (w.type()) {
            case F32 -> MatmulKernels.matmulF32(w.data(), w.rows(), w.cols(), x, out, batch);
            case F16 -> MatmulKernels.matmulF16(w.data(), w.rows(), w.cols(), x, out, batch);
            case BF16 -> MatmulKernels.matmulBF16(w.data(), w.rows(), w.cols(), x, out, batch);
            case Q8_0 -> MatmulKernels.matmulQ8_0(w.data(), w.rows(), w.cols(), x, out, batch);
            case Q4_0 -> MatmulKernels.matmulQ4_0(w.data(), w.rows(), w.cols(), x, out, batch);
            case Q4_1 -> MatmulKernels.matmulNibble(NibbleBlock.Q4_1, null, w.data(), w.rows(), w.cols(), x, out, batch);
            case Q5_0 -> MatmulKernels.matmulNibble(NibbleBlock.Q5_0, null, w.data(), w.rows(), w.cols(), x, out, batch);
            case Q5_1 -> MatmulKernels.matmulNibble(NibbleBlock.Q5_1, null, w.data(), w.rows(), w.cols(), x, out, batch);
            case IQ4_NL -> MatmulKernels.matmulNibble(IQ4_NLCodec.LAYOUT, IQ4_NLCodec.VALUES, w.data(), w.rows(),
                    w.cols(), x, out, batch);
            case Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_XS ->
                    MatmulKernels.matmulSuperBlock(w.type(), w.data(), w.rows(), w.cols(), x, out, batch);
            default -> throw new IllegalArgumentException(w.name() + ": no matmul kernel for " + w.type());
        }
    }

    @Override
    public void dequantizeRow(WeightMatrix w, int row, float[] out, int offset) {
        KernelArguments.dequantizeRow(w, row, out, offset);
        GgmlCodec.dequantize(w.type(), w.data(), row * w.rowBytes(), out, offset, w.cols());
    }

    @Override
    public void rmsnorm(float[] out, float[] x, float[] weight, int rows, int dim, float eps) {
        KernelArguments.rows(out, x, weight, rows, dim);
        NormKernels.rmsnorm(out, x, weight, rows, dim, eps);
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
        int needed = Math.multiplyExact(batch * heads, startPos + batch);
        if (scores.length < needed) {
            scores = new float[needed];
        }
        AttentionKernels.attention(q, kv.pages(), kv.pageBytes(), kv.blockSize(), kv.keyOffset(), kv.valueOffset(),
                kv.blockTable(), out, scores, batch, startPos, heads, kvHeads, headDim, scale);
    }

    @Override
    public void siluMul(float[] gate, float[] up, int n) {
        KernelArguments.elements(n, gate, up);
        ElementwiseKernels.siluMul(gate, up, n);
    }

    @Override
    public void add(float[] acc, float[] x, int n) {
        KernelArguments.elements(n, acc, x);
        ElementwiseKernels.add(acc, x, n);
    }

    @Override
    public void addBias(float[] x, float[] bias, int rows, int dim) {
        KernelArguments.rows(x, x, bias, rows, dim);
        ElementwiseKernels.addBias(x, bias, rows, dim);
    }

    @Override
    public void softmax(float[] x, int offset, int n) {
        KernelArguments.range(x, offset, n);
        if (n > 0) {
            NormKernels.softmax(x, offset, n);
        }
    }

    @Override
    public void close() {
        // Nothing to release: the reference runs on the caller's thread.
    }
}
