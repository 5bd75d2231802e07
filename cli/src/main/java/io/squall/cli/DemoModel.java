package io.squall.cli;

import io.squall.functions.engine.model.Architecture;
import io.squall.functions.engine.model.RandomModel;
import io.squall.kernels.GgmlType;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The demo model {@code squall serve} uses without {@code --model}: a small llama (dim 256, 4 layers,
 * built-in byte-level vocabulary) with RANDOM weights, written once into the user's cache directory.
 */
final class DemoModel {

    private static final RandomModel.Spec SPEC = new RandomModel.Spec(Architecture.LLAMA,
            new RandomModel.Shape(256, 4, 4, 4, 768, 2048), GgmlType.Q8_0, null, 1234);

    private DemoModel() {
    }

    /** Writes the demo model to {@code file}; returns it. */
    static Path write(Path file) {
        RandomModel.write(SPEC, file);
        return file;
    }

    /** The cached file, written first if absent (atomically, so a crash never leaves half a model). */
    static Path ensure() {
        Path file = Path.of(System.getProperty("user.home"), ".cache", "squall", "demo-model.gguf");
        if (!Files.isRegularFile(file)) {
            try {
                Files.createDirectories(file.getParent());
                Path partial = file.resolveSibling("demo-model.gguf.partial");
                RandomModel.write(SPEC, partial);
                Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write the demo model to " + file, e);
            }
        }
        return file;
    }
}
