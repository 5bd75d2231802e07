package io.squall.kernels;

import io.squall.kernels.cpu.CpuKernels;
import io.squall.kernels.reference.ReferenceKernels;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Backs {@link Kernels#best()}: picks the implementation named by {@code squall.kernels} and logs the
 * choice, with the reason, once per JVM.
 *
 * <p>The TornadoVM executor ({@value #TORNADO_EXECUTOR}) is compiled only when the build ran with a
 * TornadoVM SDK ({@code TORNADOVM_HOME}), and runs only in a JVM started with TornadoVM's modules (its
 * {@code tornado} launcher or {@code @$TORNADOVM_HOME/tornado-argfile}); it is reached by reflection so
 * that this class links without it.
 */
final class KernelsProvider {

    /** The TornadoVM executor's class; its static {@code open()} returns a {@link Kernels}. */
    static final String TORNADO_EXECUTOR = "io.squall.kernels.tornado.TornadoKernels";
    /** A module that TornadoVM's launcher and argfile always put in the boot layer. */
    static final String TORNADO_RUNTIME_MODULE = "tornado.runtime";

    private static final Logger LOG = LoggerFactory.getLogger(Kernels.class);
    private static final AtomicBoolean LOGGED = new AtomicBoolean();

    private KernelsProvider() {
    }

    /** An implementation and why it was chosen. */
    private record Choice(Kernels kernels, String reason) {
    }

    static Kernels create() {
        String choice = System.getProperty("squall.kernels", "auto");
        Choice chosen = switch (choice) {
            case "auto" -> auto();
            case "cpu" -> {
                if (!vectorAvailable()) {
                    throw new IllegalStateException("squall.kernels=cpu needs --add-modules jdk.incubator.vector"
                            + " and 256- or 512-bit vectors");
                }
                yield new Choice(cpu(), "asked for with squall.kernels=cpu");
            }
            case "reference" -> new Choice(new ReferenceKernels(), "asked for with squall.kernels=reference");
            case "tornadovm" -> {
                String missing = tornadoMissing();
                if (missing != null) {
                    throw new IllegalStateException("squall.kernels=tornadovm, but " + missing);
                }
                yield new Choice(tornado(), "asked for with squall.kernels=tornadovm");
            }
            default -> throw new IllegalStateException(
                    "squall.kernels must be auto, cpu, reference or tornadovm, not " + choice);
        };
        if (LOGGED.compareAndSet(false, true)) {
            LOG.info("Kernels: {} ({})", chosen.kernels().name(), chosen.reason());
        }
        return chosen.kernels();
    }

    /** TornadoVM when its runtime, this build's executor and a device are present; else the CPU executor. */
    private static Choice auto() {
        String missing = tornadoMissing();
        if (missing == null) {
            try {
                return new Choice(tornado(), "auto: TornadoVM runtime and a device present");
            } catch (IllegalStateException e) {
                missing = e.getMessage();
            }
        }
        if (vectorAvailable()) {
            return new Choice(cpu(), "auto: " + missing);
        }
        return new Choice(new ReferenceKernels(), "auto: " + missing
                + "; Vector API unavailable too: run with --add-modules jdk.incubator.vector");
    }

    /** Why the TornadoVM executor cannot run in this JVM, or null when it can be tried. */
    static String tornadoMissing() {
        if (ModuleLayer.boot().findModule(TORNADO_RUNTIME_MODULE).isEmpty()) {
            return "no TornadoVM runtime in this JVM (start it with @$TORNADOVM_HOME/tornado-argfile or the"
                    + " tornado launcher; see docs/tornadovm.md)";
        }
        try {
            Class.forName(TORNADO_EXECUTOR, false, KernelsProvider.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            return "the TornadoVM runtime is present but this build has no TornadoVM executor"
                    + " (build with TORNADOVM_HOME set: ./mvnw -Ptornadovm package)";
        }
        return null;
    }

    /** Opens the TornadoVM executor; an {@link IllegalStateException} says why it cannot (no device, say). */
    private static Kernels tornado() {
        try {
            Method open = Class.forName(TORNADO_EXECUTOR).getMethod("open");
            return (Kernels) open.invoke(null);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            throw new IllegalStateException("the TornadoVM executor could not start: " + cause.getMessage(), cause);
        } catch (ReflectiveOperationException | LinkageError e) {
            throw new IllegalStateException("the TornadoVM executor could not be loaded: " + e, e);
        }
    }

    private static Kernels cpu() {
        int threads = Integer.getInteger("squall.kernels.threads", Runtime.getRuntime().availableProcessors());
        return new CpuKernels(threads);
    }

    /** Checks the module before touching any class that links against it. */
    static boolean vectorAvailable() {
        return ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent() && CpuKernels.isSupported();
    }
}
