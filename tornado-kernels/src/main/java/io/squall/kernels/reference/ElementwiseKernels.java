package io.squall.kernels.reference;

/** Element-wise kernels. Parallel loop: the element index. */
public final class ElementwiseKernels {

    private ElementwiseKernels() {
    }

    /** SwiGLU: {@code gate_i = gate_i / (1 + exp(−gate_i)) · up_i}. */
    public static void siluMul(float[] gate, float[] up, int n) {
        for (int i = 0; i < n; i++) {
            gate[i] = DeviceMath.silu(gate[i]) * up[i];
        }
    }

    /** Residual: {@code acc_i += x_i}. */
    public static void add(float[] acc, float[] x, int n) {
        for (int i = 0; i < n; i++) {
            acc[i] += x[i];
        }
    }

    /** {@code x[row·dim + i] += bias[i]}. */
    public static void addBias(float[] x, float[] bias, int rows, int dim) {
        for (int row = 0; row < rows; row++) {
            for (int i = 0; i < dim; i++) {
                x[row * dim + i] += bias[i];
            }
        }
    }
}
