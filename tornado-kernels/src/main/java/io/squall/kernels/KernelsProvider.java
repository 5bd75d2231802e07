package io.squall.kernels;

import io.squall.kernels.cpu.CpuKernels;
import io.squall.kernels.reference.ReferenceKernels;

import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Backs {@link Kernels#best()}: picks the implementation and logs the choice once per JVM. */
final class KernelsProvider {

    private static final Logger LOG = LoggerFactory.getLogger(Kernels.class);
    private static final AtomicBoolean LOGGED = new AtomicBoolean();

    private KernelsProvider() {
    }

    static Kernels create() {
        String choice = System.getProperty("squall.kernels", "auto");
        Kernels kernels = switch (choice) {
            case "auto" -> vectorAvailable() ? cpu() : new ReferenceKernels();
            case "cpu" -> {
                if (!vectorAvailable()) {
                    throw new IllegalStateException("squall.kernels=cpu needs --add-modules jdk.incubator.vector"
                            + " and 256- or 512-bit vectors");
                }
                yield cpu();
            }
            case "reference" -> new ReferenceKernels();
            default -> throw new IllegalStateException("squall.kernels must be auto, cpu or reference, not " + choice);
        };
        if (LOGGED.compareAndSet(false, true)) {
            LOG.info("Kernels: {}{}", kernels.name(),
                    kernels instanceof ReferenceKernels && choice.equals("auto")
                            ? " (Vector API unavailable: run with --add-modules jdk.incubator.vector)" : "");
        }
        return kernels;
    }

    private static Kernels cpu() {
        int threads = Integer.getInteger("squall.kernels.threads", Runtime.getRuntime().availableProcessors());
        return new CpuKernels(threads);
    }

    /** Checks the module before touching any class that links against it. */
    private static boolean vectorAvailable() {
        return ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent() && CpuKernels.isSupported();
    }
}
