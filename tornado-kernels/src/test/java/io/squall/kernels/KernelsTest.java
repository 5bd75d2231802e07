package io.squall.kernels;

import io.squall.kernels.cpu.CpuKernels;
import io.squall.kernels.reference.ReferenceKernels;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KernelsTest {

    @AfterEach
    void clearProperties() {
        System.clearProperty("squall.kernels");
        System.clearProperty("squall.kernels.threads");
    }

    @Test
    void bestIsTheCpuExecutorWhenTheVectorApiIsPresent() {
        System.setProperty("squall.kernels.threads", "2");
        try (Kernels kernels = Kernels.best()) {
            assertThat(kernels).isInstanceOf(CpuKernels.class);
            assertThat(kernels.name()).startsWith("cpu-vector(2 threads, ");
        }
    }

    @Test
    void theReferenceCanBeForced() {
        System.setProperty("squall.kernels", "reference");
        try (Kernels kernels = Kernels.best()) {
            assertThat(kernels).isInstanceOf(ReferenceKernels.class);
        }
    }

    @Test
    void unknownChoicesAreRejected() {
        System.setProperty("squall.kernels", "gpu");
        assertThatThrownBy(Kernels::best).isInstanceOf(IllegalStateException.class).hasMessageContaining("gpu");
    }
}
