package io.squall.cli;

import io.squall.cli.model.ModelSpec;
import io.squall.cli.model.ModelStore;

import java.nio.file.Path;

/**
 * Reads {@code --model} for every command that takes one: a GGUF file, {@code hf:OWNER/REPO/FILE.gguf} or an
 * {@code https://} URL. The form is checked while the command line is parsed; {@link #file(ModelSpec)} downloads
 * into the model cache, once, when the command runs.
 */
final class ModelArgument extends ParsingConverter<ModelSpec> {

    /** The option's description, shared by every command. */
    static final String DESCRIPTION = "GGUF model: a file, hf:OWNER/REPO/FILE.gguf from the Hugging Face hub, or an "
            + "https:// URL; downloads go once into the model cache (~/.cache/squall/models, or $SQUALL_MODELS_DIR)";

    ModelArgument() {
        super(ModelSpec::parse);
    }

    /** The local file of {@code spec}: the file itself, or the cached download (downloading it first). */
    static Path file(ModelSpec spec) {
        return ModelStore.fromEnvironment().resolve(spec);
    }
}
