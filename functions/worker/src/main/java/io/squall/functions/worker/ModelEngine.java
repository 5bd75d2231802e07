package io.squall.functions.worker;

import io.squall.functions.engine.gguf.GgufMetadata;
import io.squall.functions.engine.model.ForwardPass;
import io.squall.functions.engine.model.KernelWarmup;
import io.squall.functions.engine.model.Model;
import io.squall.functions.engine.model.Transformer;
import io.squall.kernels.Kernels;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Objects;

/**
 * A loaded model and the kernels to run it: forward passes are {@link Transformer}s over its weights.
 * Closing releases them only when this handle owns them.
 *
 * @param model the mapped weights and configuration
 * @param kernels the compute kernels; usable by one forward pass at a time
 * @param owned whether {@link #close()} closes the model and kernels
 */
public record ModelEngine(Model model, Kernels kernels, boolean owned) implements Engine {

    private static final Logger LOG = LoggerFactory.getLogger(ModelEngine.class);

    public ModelEngine {
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(kernels, "kernels");
    }

    @Override
    public String modelName() {
        return model.name();
    }

    @Override
    public GgufMetadata metadata() {
        return model.metadata();
    }

    @Override
    public ForwardPass forwardPass(int maxPositions) {
        return new Transformer(model.config(), model.weights(), kernels, maxPositions);
    }

    @Override
    public void warmUp(Duration limit) {
        KernelWarmup.Report report = KernelWarmup.run(model.config(), model.weights(), kernels, limit);
        if (report.rounds() == 0) {
            return; // none asked for, or kernels compiled for a device rather than by the JIT
        }
        LOG.info("kernels warmed up in {} ms: {} rounds of a miniature of the model, the first {} ms, the last {} ms{}",
                report.elapsed().toMillis(), report.rounds(), Math.round(report.firstRoundMillis()),
                Math.round(report.lastRoundMillis()), report.settled() ? "" : " (stopped at the time limit)");
    }

    @Override
    public String describe() {
        return "kernels " + kernels.name();
    }

    @Override
    public void close() {
        if (owned) {
            kernels.close();
            model.close();
        }
    }
}
