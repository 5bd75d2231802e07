package io.squall.functions.worker;

import io.squall.functions.engine.model.Model;
import io.squall.kernels.Kernels;

import java.util.Objects;

/**
 * A loaded model and the kernels to run it, as a worker receives them from a {@link ModelSource}.
 * Closing releases them only when this handle owns them.
 *
 * @param model the mapped weights and configuration
 * @param kernels the compute kernels; usable by one forward pass at a time
 * @param owned whether {@link #close()} closes the model and kernels
 */
public record Engine(Model model, Kernels kernels, boolean owned) implements AutoCloseable {

    public Engine {
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(kernels, "kernels");
    }

    @Override
    public void close() {
        if (owned) {
            kernels.close();
            model.close();
        }
    }
}
