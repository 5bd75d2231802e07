package io.squall.functions.engine.tokenizer;

import io.squall.functions.engine.gguf.GgufMetadata;
import io.squall.functions.engine.tokenizer.bpe.BytePairTokenizer;
import io.squall.functions.engine.tokenizer.spm.SentencePieceTokenizer;

/** Builds the {@link Tokenizer} for a vocabulary. */
public final class Tokenizers {

    private Tokenizers() {
    }

    /**
     * The tokenizer for {@code vocabulary}'s model.
     *
     * @throws IllegalArgumentException if the vocabulary is inconsistent (duplicate tokens, a byte token
     *                                  not spelled {@code <0xXX>}) or names an unsupported pre-tokenizer
     */
    public static Tokenizer create(Vocabulary vocabulary) {
        return switch (vocabulary.model()) {
            case SENTENCEPIECE -> new SentencePieceTokenizer(vocabulary);
            case BYTE_LEVEL_BPE -> new BytePairTokenizer(vocabulary);
        };
    }

    /**
     * The tokenizer described by a model file's metadata ({@link GgufVocabulary#read}).
     *
     * @throws IllegalArgumentException if the tokenizer keys are missing, malformed or unsupported
     */
    public static Tokenizer fromGguf(GgufMetadata metadata) {
        return create(GgufVocabulary.read(metadata));
    }
}
