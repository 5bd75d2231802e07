package io.squall.functions.engine.mock;

import io.squall.functions.engine.model.Architecture;
import io.squall.functions.engine.model.Model;
import io.squall.functions.engine.model.RandomModel;
import io.squall.functions.engine.tokenizer.GgufVocabulary;
import io.squall.functions.engine.tokenizer.Vocabulary;
import io.squall.kernels.GgmlType;

import java.nio.file.Path;

/** The byte-level vocabulary of models written without one (256 byte tokens and three control tokens), for tests. */
final class BuiltInVocabulary {

    private BuiltInVocabulary() {
    }

    /** Writes a tiny model into {@code dir} and reads its vocabulary back. */
    static Vocabulary read(Path dir) {
        Path file = dir.resolve("vocab.gguf");
        RandomModel.write(new RandomModel.Spec(Architecture.LLAMA, new RandomModel.Shape(32, 1, 2, 2, 64, 256),
                GgmlType.F32, null, 3), file);
        try (Model model = Model.load(file)) {
            return GgufVocabulary.read(model.metadata());
        }
    }
}
