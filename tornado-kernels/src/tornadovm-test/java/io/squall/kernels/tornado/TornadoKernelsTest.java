package io.squall.kernels.tornado;

import io.squall.kernels.GgmlType;
import io.squall.kernels.KernelContract;
import io.squall.kernels.Kernels;
import org.junit.jupiter.api.AfterAll;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The kernel contract on the TornadoVM executor, through TornadoVM's JIT on its default device (PoCL
 * here) with bailouts turned into failures. One executor serves the whole class, so each kernel is
 * compiled once per buffer size rather than once per test; the only operations allowed on the host
 * are the formats without a device kernel.
 */
class TornadoKernelsTest extends KernelContract {

    private static TornadoKernels shared;

    @Override
    protected Kernels create() {
        if (shared == null) {
            shared = TornadoKernels.open();
        }
        return (Kernels) Proxy.newProxyInstance(Kernels.class.getClassLoader(), new Class<?>[] {Kernels.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("close")) {
                        return null; // the shared executor outlives each test
                    }
                    try {
                        return method.invoke(shared, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @AfterAll
    static void nothingButUnsupportedFormatsLeftTheDevice() {
        if (shared == null) {
            return;
        }
        Set<String> onHost = shared.hostOperations();
        shared.close();
        shared = null;
        Set<String> noDeviceKernel = Arrays.stream(GgmlType.values())
                .filter(type -> type.isMatmulSupported() && !WeightArena.supports(type))
                .map(type -> type + " matmul")
                .collect(Collectors.toSet());
        assertThat(onHost).as("operations that ran on the host executor").isSubsetOf(noDeviceKernel);
    }
}
