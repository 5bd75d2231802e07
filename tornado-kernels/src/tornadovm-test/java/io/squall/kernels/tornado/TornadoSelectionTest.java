package io.squall.kernels.tornado;

import io.squall.kernels.Kernels;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/** In a JVM started with TornadoVM's argfile, {@code auto} and {@code tornadovm} pick the TornadoVM executor. */
class TornadoSelectionTest {

    @AfterEach
    void clearProperty() {
        System.clearProperty("squall.kernels");
    }

    @ParameterizedTest
    @ValueSource(strings = {"auto", "tornadovm"})
    void theTornadoVmExecutorIsChosenWhenItsRuntimeAndADeviceArePresent(String choice) {
        System.setProperty("squall.kernels", choice);
        try (Kernels kernels = Kernels.best()) {
            assertThat(kernels).isInstanceOf(TornadoKernels.class);
            assertThat(kernels.name()).startsWith("tornadovm(");
        }
    }
}
