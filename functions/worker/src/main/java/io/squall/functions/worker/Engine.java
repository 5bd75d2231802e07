package io.squall.functions.worker;

import io.squall.functions.engine.gguf.GgufMetadata;
import io.squall.functions.engine.model.ForwardPass;

import java.time.Duration;

/**
 * What a worker runs, as it receives it from a {@link ModelSource}: the model's vocabulary and name, and
 * the forward pass its scheduler steps. A {@link ModelEngine} computes with real weights; a simulated engine
 * times each step by a model instead.
 *
 * <p>Thread-safety: {@link #forwardPass} may be called from any thread; each pass it returns is used by one
 * scheduler thread.
 */
public interface Engine extends AutoCloseable {

    /** The model's name, as discovery advertises it. */
    String modelName();

    /** The GGUF metadata holding the vocabulary (and chat template) the worker's tokenizer reads. */
    GgufMetadata metadata();

    /** A new forward pass for one scheduler, running sequences of up to {@code maxPositions} tokens. */
    ForwardPass forwardPass(int maxPositions);

    /**
     * Brings the engine to its serving speed before the worker registers, for at most {@code limit}: a real engine has
     * the JIT compile its kernels ({@link io.squall.functions.engine.model.KernelWarmup}); a simulated one has nothing
     * to warm. Called once, before any forward pass runs.
     */
    default void warmUp(Duration limit) {
    }

    /** What computes, for the start-up log, e.g. the kernels' name. */
    String describe();

    /** Releases what this engine owns. */
    @Override
    void close();
}
