package io.squall.functions.engine.tokenizer;

/**
 * How token ids become text, for {@link Tokenizer#decode(int[], DecodeOptions)} and
 * {@link IncrementalDecoder}.
 *
 * @param renderSpecial     render control and unknown tokens as their text (such as
 *                          {@code <|im_end|>}); when false they contribute nothing
 * @param keepLeadingSpace  keep the leading space of the first token's text. When false, the model's
 *                          rule applies, as in llama.cpp's {@code llama_detokenize}: if the vocabulary
 *                          adds a space prefix when encoding ({@code add_space_prefix}, the SentencePiece
 *                          default), one leading space of the first token's text is removed, so that
 *                          {@code decode(encode("Hello")) = "Hello"} and not {@code " Hello"}.
 */
public record DecodeOptions(boolean renderSpecial, boolean keepLeadingSpace) {

    /** llama.cpp's default detokenization: special tokens hidden, the model's leading-space rule applied. */
    public static final DecodeOptions DEFAULT = new DecodeOptions(false, false);

    /**
     * Generated text, which continues its prompt: special tokens hidden and the first token's leading
     * space kept, as llama.cpp's server and CLI print each token's piece. (Removing it would turn a
     * completion of "The dog" into "was …" instead of " was …".)
     */
    public static final DecodeOptions CONTINUATION = new DecodeOptions(false, true);
}
