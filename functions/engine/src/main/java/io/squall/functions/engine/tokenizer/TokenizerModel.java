package io.squall.functions.engine.tokenizer;

/** The tokenization algorithm of a vocabulary, named in GGUF by {@code tokenizer.ggml.model}. */
public enum TokenizerModel {

    /** SentencePiece BPE with byte fallback, GGUF name {@code llama}. */
    SENTENCEPIECE("llama"),

    /** GPT-2 style byte-level BPE with a regex pre-tokenizer, GGUF name {@code gpt2}. */
    BYTE_LEVEL_BPE("gpt2");

    private final String ggufName;

    TokenizerModel(String ggufName) {
        this.ggufName = ggufName;
    }

    /** The value of {@code tokenizer.ggml.model} that selects this model. */
    public String ggufName() {
        return ggufName;
    }

    /**
     * The model named {@code name} in GGUF metadata.
     *
     * @throws IllegalArgumentException if Squall does not implement that tokenizer
     */
    public static TokenizerModel fromGgufName(String name) {
        for (TokenizerModel model : values()) {
            if (model.ggufName.equals(name)) {
                return model;
            }
        }
        throw new IllegalArgumentException("unsupported tokenizer model '" + name
                + "' (tokenizer.ggml.model): Squall implements 'llama' (SentencePiece) and 'gpt2' (byte-level BPE)");
    }
}
