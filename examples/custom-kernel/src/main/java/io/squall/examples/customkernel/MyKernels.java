package io.squall.examples.customkernel;

import io.squall.kernels.custom.CustomKernel;
import uk.ac.manchester.tornado.api.annotations.Parallel;

/**
 * Two kernels a user writes in TornadoVM's style: static methods over {@code float[]} with one
 * {@code @Parallel} loop, no allocation, no exceptions. TornadoVM compiles them for its device; the
 * JVM runs the same code as their CPU reference.
 */
public final class MyKernels {

    private MyKernels() {
    }

    /** {@code tanh} from {@code exp}, which every TornadoVM backend has: {@code 1 − 2/(e^{2z} + 1)}. */
    static float tanh(float z) {
        return 1f - 2f / ((float) Math.exp(2f * z) + 1f);
    }

    /**
     * Logit soft-capping (as in Gemma 2): {@code x_i = cap_i · tanh(x_i / cap_i)}, squashing logits into
     * {@code (−cap, cap)} while keeping their order.
     */
    public static void softCap(float[] x, float[] cap, int n) {
        for (@Parallel int i = 0; i < n; i++) {
            x[i] = cap[i] * tanh(x[i] / cap[i]);
        }
    }

    /** GEGLU: {@code gate_i = gelu(gate_i) · up_i}, GELU in its tanh form. */
    public static void geluMul(float[] gate, float[] up, int n) {
        for (@Parallel int i = 0; i < n; i++) {
            float g = gate[i];
            float gelu = 0.5f * g * (1f + tanh(0.7978845608f * (g + 0.044715f * g * g * g)));
            gate[i] = gelu * up[i];
        }
    }

    /** The soft-cap as a {@link CustomKernel}: the TornadoVM-style method is its own CPU reference. */
    public static CustomKernel softCap() {
        return CustomKernel.of("soft-cap", MyKernels::softCap);
    }

    /** GEGLU as a {@link CustomKernel}. */
    public static CustomKernel geluMul() {
        return CustomKernel.of("gelu-mul", MyKernels::geluMul);
    }
}
