package io.squall.functions.engine.model;

import io.squall.functions.engine.gguf.GgufFile;
import io.squall.functions.engine.gguf.GgufMetadata;

import java.nio.file.Path;

/**
 * A model file opened for inference: its GGUF mapping, configuration and weights. The weights are
 * slices of the mapping, valid until {@link #close()}.
 *
 * <p>Thread-safety: immutable; share it between the transformers of several workers.
 */
public final class Model implements AutoCloseable {

    private final GgufFile file;
    private final ModelConfig config;
    private final ModelWeights weights;

    private Model(GgufFile file, ModelConfig config, ModelWeights weights) {
        this.file = file;
        this.config = config;
        this.weights = weights;
    }

    /**
     * Opens {@code path} and checks that Squall can run it.
     *
     * @throws io.squall.functions.engine.gguf.GgufException if the file is not valid GGUF
     * @throws IllegalArgumentException naming the file when the architecture, a tensor or a
     *                                  hyperparameter is missing or unsupported
     */
    public static Model load(Path path) {
        GgufFile file = GgufFile.open(path);
        try {
            GgufMetadata metadata = file.metadata();
            String arch = metadata.findString("general.architecture").orElseThrow(() ->
                    new IllegalArgumentException("no general.architecture in the metadata"));
            Architecture architecture = Architecture.fromGguf(arch);
            ModelConfig config = ModelConfig.fromGguf(metadata, architecture, WeightLoader.vocabSize(file));
            ModelWeights weights = new WeightLoader(file, config).load();
            return new Model(file, config, weights);
        } catch (IllegalArgumentException e) {
            file.close();
            String message = e.getMessage().startsWith(path.toString()) ? e.getMessage() : path + ": " + e.getMessage();
            throw new IllegalArgumentException(message, e);
        } catch (RuntimeException e) {
            file.close();
            throw e;
        }
    }

    public Path path() {
        return file.path();
    }

    public GgufMetadata metadata() {
        return file.metadata();
    }

    public ModelConfig config() {
        return config;
    }

    public ModelWeights weights() {
        return weights;
    }

    /** {@code general.name}, or the file name without extension. */
    public String name() {
        return file.modelName();
    }

    @Override
    public void close() {
        file.close();
    }
}
