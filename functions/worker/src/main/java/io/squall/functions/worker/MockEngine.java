package io.squall.functions.worker;

import io.squall.functions.engine.gguf.GgufFile;
import io.squall.functions.engine.gguf.GgufMetadata;
import io.squall.functions.engine.mock.MockForwardPass;
import io.squall.functions.engine.mock.MockTokens;
import io.squall.functions.engine.mock.StepTimingModel;
import io.squall.functions.engine.model.ForwardPass;
import io.squall.functions.engine.tokenizer.GgufVocabulary;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;

/**
 * The mock engine (DESIGN §8a): a worker that is real in everything but the forward pass, whose steps take the
 * time {@link StepTimingModel} says (divided by the speedup) and whose tokens are a deterministic function of the
 * prefix. It needs only a vocabulary: the GGUF file is read for its metadata, its weights are never loaded.
 *
 * @param modelName the name discovery advertises
 * @param metadata the vocabulary and chat template
 * @param timing how long each step takes, in simulated seconds
 * @param speedup simulated seconds per wall-clock second
 */
public record MockEngine(String modelName, GgufMetadata metadata, StepTimingModel timing, double speedup)
        implements Engine {

    public MockEngine {
        Objects.requireNonNull(modelName, "modelName");
        Objects.requireNonNull(metadata, "metadata");
        Objects.requireNonNull(timing, "timing");
        if (!(speedup > 0) || Double.isInfinite(speedup)) {
            throw new IllegalArgumentException("speedup must be positive, got " + speedup);
        }
    }

    /** Reads the vocabulary of {@code file} (any GGUF with {@code tokenizer.ggml.*} keys; weights are not needed). */
    public static MockEngine open(Path file, StepTimingModel timing, double speedup) {
        try (GgufFile gguf = GgufFile.open(file)) {
            return new MockEngine(gguf.modelName(), gguf.metadata(), timing, speedup);
        }
    }

    @Override
    public ForwardPass forwardPass(int maxPositions) {
        return new MockForwardPass(timing, MockTokens.of(GgufVocabulary.read(metadata)), speedup, maxPositions);
    }

    @Override
    public String describe() {
        return String.format(Locale.ROOT, "mock engine (speedup %s, a step of 1 row takes %.3f ms)", speedup,
                timing.base(1) * 1e3);
    }

    /** Owns nothing: the file was closed once its metadata was read. */
    @Override
    public void close() {
    }
}
