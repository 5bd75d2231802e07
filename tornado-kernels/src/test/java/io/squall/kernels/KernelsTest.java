package io.squall.kernels;

import io.squall.kernels.cpu.CpuKernels;
import io.squall.kernels.reference.ReferenceKernels;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class KernelsTest {

    @AfterEach
    void clearProperties() {
        System.clearProperty("squall.kernels");
        System.clearProperty("squall.kernels.threads");
    }

    /** These tests describe a JVM without TornadoVM; under -Ptornadovm, TornadoSelectionTest covers the other. */
    private static void withoutTornadoVm() {
        assumeTrue(ModuleLayer.boot().findModule("tornado.runtime").isEmpty(), "this JVM runs TornadoVM");
    }

    @Test
    void bestIsTheCpuExecutorWhenTheVectorApiIsPresent() {
        withoutTornadoVm();
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
    void autoPicksTheCpuExecutorWithoutTheTornadoVmRuntime() {
        withoutTornadoVm();
        System.setProperty("squall.kernels", "auto");
        assertThat(KernelsProvider.tornadoMissing()).contains("no TornadoVM runtime");
        try (Kernels kernels = Kernels.best()) {
            assertThat(kernels).isInstanceOf(CpuKernels.class);
        }
    }

    @Test
    void askingForTornadoVmWithoutItsRuntimeIsAClearError() {
        withoutTornadoVm();
        System.setProperty("squall.kernels", "tornadovm");
        assertThatThrownBy(Kernels::best).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("squall.kernels=tornadovm, but no TornadoVM runtime in this JVM")
                .hasMessageContaining("tornado-argfile");
    }

    @Test
    void unknownChoicesAreRejected() {
        System.setProperty("squall.kernels", "gpu");
        assertThatThrownBy(Kernels::best).isInstanceOf(IllegalStateException.class).hasMessageContaining("gpu");
    }
}
