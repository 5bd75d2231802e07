package io.squall.functions.worker;

import io.squall.functions.engine.model.Model;
import io.squall.functions.worker.local.ExclusiveKernels;
import io.squall.kernels.Kernels;

import java.nio.file.Path;
import java.util.Objects;

/** Where a worker gets its {@link Engine}; {@link #open()} may take seconds (it maps the weights of a real model). */
@FunctionalInterface
public interface ModelSource {

    Engine open();

    /** Loads {@code file} and the best kernels for this worker alone; the worker closes them. */
    static ModelSource file(Path file) {
        Objects.requireNonNull(file, "file");
        return () -> {
            Model model = Model.load(file);
            return new ModelEngine(model, Kernels.best(), true);
        };
    }

    /**
     * One engine for every worker of this process, which the workers do not close: a {@link MockEngine}, whose
     * forward passes are independent, or a shared {@link ModelEngine} (see {@link #shared}).
     */
    static ModelSource of(Engine engine) {
        Objects.requireNonNull(engine, "engine");
        return () -> engine;
    }

    /**
     * One model and one kernel pool shared by several workers of this process: each worker's forward
     * passes take turns on the pool through {@link ExclusiveKernels}. The caller closes both after the
     * workers.
     */
    static ModelSource shared(Model model, Kernels kernels) {
        return of(new ModelEngine(model, new ExclusiveKernels(kernels), false));
    }
}
