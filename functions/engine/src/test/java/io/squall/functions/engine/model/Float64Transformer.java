package io.squall.functions.engine.model;

import io.squall.kernels.WeightMatrix;
import io.squall.kernels.format.GgmlCodec;

/**
 * An independent, deliberately plain float64 forward pass over a whole prompt, written from the
 * papers (RMSNorm, RoFormer, GQA, SwiGLU) rather than from {@link Transformer}: the test oracle for
 * architectures and prompts that llama.cpp's reference data does not cover.
 */
final class Float64Transformer {

    private final ModelConfig c;
    private final ModelWeights w;

    Float64Transformer(Model model) {
        this.c = model.config();
        this.w = model.weights();
    }

    /** Logits at the last position of {@code tokens}. */
    double[] lastLogits(int[] tokens) {
        int n = tokens.length;
        double[][] x = new double[n][];
        for (int t = 0; t < n; t++) {
            x[t] = row(w.tokenEmbedding(), tokens[t]);
        }
        for (ModelWeights.Layer layer : w.layers()) {
            ModelWeights.Attention a = layer.attention();
            double[][] q = new double[n][];
            double[][] k = new double[n][];
            double[][] v = new double[n][];
            for (int t = 0; t < n; t++) {
                double[] h = rmsnorm(x[t], a.norm());
                q[t] = matvec(a.wq(), h);
                k[t] = matvec(a.wk(), h);
                v[t] = matvec(a.wv(), h);
                if (a.bias() != null) {
                    addInPlace(q[t], a.bias().q());
                    addInPlace(k[t], a.bias().k());
                    addInPlace(v[t], a.bias().v());
                }
                if (a.qkNorm() != null) {
                    normHeads(q[t], c.heads(), a.qkNorm().q());
                    normHeads(k[t], c.kvHeads(), a.qkNorm().k());
                }
                rotate(q[t], c.heads(), t);
                rotate(k[t], c.kvHeads(), t);
            }
            for (int t = 0; t < n; t++) {
                double[] out = new double[c.qDim()];
                int group = c.heads() / c.kvHeads();
                for (int h = 0; h < c.heads(); h++) {
                    int kvh = h / group;
                    double[] scores = new double[t + 1];
                    double max = Double.NEGATIVE_INFINITY;
                    for (int s = 0; s <= t; s++) {
                        double dot = 0;
                        for (int i = 0; i < c.headDim(); i++) {
                            dot += q[t][h * c.headDim() + i] * k[s][kvh * c.headDim() + i];
                        }
                        scores[s] = dot / Math.sqrt(c.headDim());
                        max = Math.max(max, scores[s]);
                    }
                    double sum = 0;
                    for (int s = 0; s <= t; s++) {
                        scores[s] = Math.exp(scores[s] - max);
                        sum += scores[s];
                    }
                    for (int s = 0; s <= t; s++) {
                        for (int i = 0; i < c.headDim(); i++) {
                            out[h * c.headDim() + i] += scores[s] / sum * v[s][kvh * c.headDim() + i];
                        }
                    }
                }
                addInPlace(x[t], matvec(a.wo(), out));
            }
            ModelWeights.FeedForward f = layer.feedForward();
            for (int t = 0; t < n; t++) {
                double[] h = rmsnorm(x[t], f.norm());
                double[] gate = matvec(f.gate(), h);
                double[] up = matvec(f.up(), h);
                for (int i = 0; i < gate.length; i++) {
                    gate[i] = gate[i] / (1 + Math.exp(-gate[i])) * up[i];
                }
                addInPlace(x[t], matvec(f.down(), gate));
            }
        }
        return matvec(w.output(), rmsnorm(x[n - 1], w.outputNorm()));
    }

    private double[] rmsnorm(double[] x, float[] weight) {
        double ss = 0;
        for (double value : x) {
            ss += value * value;
        }
        double scale = 1 / Math.sqrt(ss / x.length + c.rmsEps());
        double[] out = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            out[i] = x[i] * scale * weight[i];
        }
        return out;
    }

    private void normHeads(double[] x, int heads, float[] weight) {
        for (int h = 0; h < heads; h++) {
            double[] head = java.util.Arrays.copyOfRange(x, h * c.headDim(), (h + 1) * c.headDim());
            System.arraycopy(rmsnorm(head, weight), 0, x, h * c.headDim(), c.headDim());
        }
    }

    /** RoFormer rotation of each head at {@code position}; NEOX pairs (i, i+d/2), otherwise (2i, 2i+1). */
    private void rotate(double[] x, int heads, int position) {
        boolean neox = c.architecture().ropeStyle() == Architecture.RopeStyle.NEOX;
        int half = c.ropeDim() / 2;
        for (int h = 0; h < heads; h++) {
            int base = h * c.headDim();
            for (int i = 0; i < half; i++) {
                double frequency = Math.pow(c.ropeTheta(), -2.0 * i / c.ropeDim());
                if (w.ropeFrequencyFactors() != null) {
                    frequency /= w.ropeFrequencyFactors()[i];
                }
                double angle = position * c.ropePositionScale() * frequency;
                int a = neox ? base + i : base + 2 * i;
                int b = neox ? base + i + half : base + 2 * i + 1;
                double x0 = x[a];
                double x1 = x[b];
                x[a] = x0 * Math.cos(angle) - x1 * Math.sin(angle);
                x[b] = x0 * Math.sin(angle) + x1 * Math.cos(angle);
            }
        }
    }

    private static double[] row(WeightMatrix m, int r) {
        float[] values = new float[m.cols()];
        GgmlCodec.dequantize(m.type(), m.data(), r * m.rowBytes(), values, 0, m.cols());
        double[] out = new double[m.cols()];
        for (int i = 0; i < out.length; i++) {
            out[i] = values[i];
        }
        return out;
    }

    private static double[] matvec(WeightMatrix m, double[] x) {
        double[] out = new double[m.rows()];
        float[] values = new float[m.cols()];
        for (int r = 0; r < m.rows(); r++) {
            GgmlCodec.dequantize(m.type(), m.data(), r * m.rowBytes(), values, 0, m.cols());
            double sum = 0;
            for (int i = 0; i < m.cols(); i++) {
                sum += values[i] * x[i];
            }
            out[r] = sum;
        }
        return out;
    }

    private static void addInPlace(double[] acc, double[] x) {
        for (int i = 0; i < acc.length; i++) {
            acc[i] += x[i];
        }
    }

    private static void addInPlace(double[] acc, float[] x) {
        for (int i = 0; i < acc.length; i++) {
            acc[i] += x[i];
        }
    }
}
