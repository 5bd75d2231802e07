package io.squall.functions.engine.tokenizer;

/**
 * Text ↔ token ids for one vocabulary, matching llama.cpp token for token.
 *
 * <p>Thread-safety: implementations are immutable apart from internal caches and may be used by
 * any number of threads at once.
 *
 * <p>Units: ids are vocabulary indices in {@code [0, vocabularySize())}; texts are Java strings.
 * Unpaired surrogates in input text are encoded as U+FFFD (llama.cpp does the same with invalid
 * UTF-8).
 */
public interface Tokenizer {

    /** The vocabulary this tokenizer was built from. */
    Vocabulary vocabulary();

    /** The number of tokens in the vocabulary. */
    int vocabularySize();

    /**
     * Token ids for {@code text}.
     *
     * @param options whether to add BOS/EOS per the model and whether to parse control tokens written
     *                in the text
     */
    int[] encode(String text, EncodeOptions options);

    /** Text for {@code ids} with {@link DecodeOptions#DEFAULT}. */
    default String decode(int[] ids) {
        return decode(ids, DecodeOptions.DEFAULT);
    }

    /**
     * Text for {@code ids}, as llama.cpp's {@code llama_detokenize}: the token texts joined, bytes
     * decoded as UTF-8 (malformed sequences become U+FFFD), then the model's clean-up of spaces before
     * punctuation where the vocabulary asks for it (GPT-2 style pre-tokenizers).
     *
     * @throws IllegalArgumentException if an id is outside the vocabulary
     */
    String decode(int[] ids, DecodeOptions options);

    /**
     * The raw bytes token {@code id} stands for: SentencePiece {@code ▁} as a space and {@code <0xXX>}
     * as that one byte, byte-level BPE characters mapped back to bytes, control, unknown and
     * user-defined tokens as their UTF-8 text, unused tokens as nothing. The array is a fresh copy.
     *
     * @throws IllegalArgumentException if {@code id} is outside the vocabulary
     */
    byte[] tokenBytes(int id);

    /**
     * The bytes token {@code id} contributes to decoded text under {@code options}: as
     * {@link #tokenBytes(int)}, but empty for control and unknown tokens unless
     * {@link DecodeOptions#renderSpecial()}. The array is a fresh copy.
     */
    byte[] tokenBytes(int id, DecodeOptions options);

    /** Whether decoding with {@code options} removes one leading space from the first token's bytes. */
    boolean stripsLeadingSpace(DecodeOptions options);

    /** The vocabulary text of token {@code id}, unprocessed (such as {@code ▁Hello} or {@code ĠHello}). */
    String tokenText(int id);

    /**
     * The special-token ids: those the vocabulary declares, plus EOT, EOM and FIM tokens recognised by
     * their text (such as {@code <|eot_id|>}, {@code <|im_end|>}) when not declared, as llama.cpp does.
     */
    SpecialTokens specialTokens();

    /** Whether token {@code id} is a control token (including tokens llama.cpp promotes to control). */
    boolean isControl(int id);

    /**
     * Whether generating token {@code id} ends generation: EOS, EOT, EOM and the control tokens that
     * llama.cpp infers from their text ({@code <|im_end|>}, {@code <|eot_id|>}, {@code <|end|>},
     * {@code <end_of_turn>}, {@code <|endoftext|>}, ...).
     */
    boolean isEndOfGeneration(int id);

    /** All end-of-generation ids, ascending. A fresh array. */
    int[] endOfGenerationIds();

    /** A new decoder for one stream of generated ids. */
    default IncrementalDecoder newIncrementalDecoder(DecodeOptions options) {
        return new IncrementalDecoder(this, options);
    }
}
