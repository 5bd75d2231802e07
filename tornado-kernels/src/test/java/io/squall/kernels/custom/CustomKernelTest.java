package io.squall.kernels.custom;

import io.squall.kernels.Kernels;
import io.squall.kernels.reference.ReferenceKernels;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CustomKernelTest {

    /** {@code x_i = max(x_i, y_i)}. */
    static void floor(float[] x, float[] y, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = Math.max(x[i], y[i]);
        }
    }

    void instanceKernel(float[] x, float[] y, int n) {
        x[0] = n;
    }

    @Test
    void aStaticMethodReferenceNamesItsMethod() throws NoSuchMethodException {
        CustomKernel kernel = CustomKernel.of("floor", CustomKernelTest::floor);
        assertThat(kernel.kernelMethod())
                .isEqualTo(CustomKernelTest.class.getDeclaredMethod("floor", float[].class, float[].class, int.class));
    }

    @Test
    void capturingLambdasAndInstanceMethodsAreRejected() {
        float limit = 3f;
        assertThatThrownBy(() -> CustomKernel.of("capturing", (x, y, n) -> x[0] = limit))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("capturing 1");
        assertThatThrownBy(() -> CustomKernel.of("instance", this::instanceKernel))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("static method");
    }

    @Test
    void hostExecutorsRunTheReference() {
        CustomKernel kernel = new CustomKernel("floor", CustomKernelTest::floor, CustomKernelTest::floor);
        float[] x = {-1f, 2f, -3f, 9f};
        float[] y = {0f, 0f, 0f, 0f};
        try (Kernels kernels = new ReferenceKernels()) {
            kernels.run(kernel, x, y, 3);
        }
        assertThat(x).containsExactly(0f, 2f, 0f, 9f);
        try (Kernels kernels = new ReferenceKernels()) {
            assertThatThrownBy(() -> kernels.run(kernel, x, new float[2], 3)).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
