package io.squall.kernels.reference;

/** Normalisations. */
public final class NormKernels {

    private NormKernels() {
    }

    /**
     * {@code out = x / sqrt(mean(x²) + eps) · weight} per row of length {@code dim}; {@code out} may
     * be {@code x}. Parallel loop: {@code row}.
     */
    public static void rmsnorm(float[] out, float[] x, float[] weight, int rows, int dim, float eps) {
        for (int row = 0; row < rows; row++) {
            int base = row * dim;
            float ss = 0f;
            for (int i = 0; i < dim; i++) {
                ss += x[base + i] * x[base + i];
            }
            float inv = DeviceMath.rmsScale(ss, dim, eps);
            for (int i = 0; i < dim; i++) {
                out[base + i] = x[base + i] * inv * weight[i];
            }
        }
    }

    /** Numerically stable softmax in place: {@code x_i = exp(x_i − max) / Σ exp(x_j − max)}. */
    public static void softmax(float[] x, int offset, int n) {
        float max = Float.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++) {
            max = Math.max(max, x[offset + i]);
        }
        float sum = 0f;
        for (int i = 0; i < n; i++) {
            float e = (float) Math.exp(x[offset + i] - max);
            x[offset + i] = e;
            sum += e;
        }
        float inv = 1f / sum;
        for (int i = 0; i < n; i++) {
            x[offset + i] *= inv;
        }
    }
}
