package io.squall.functions.engine.tokenizer;

/**
 * How {@link Tokenizer#encode(String, EncodeOptions)} treats special tokens, as llama.cpp's
 * {@code llama_tokenize(..., add_special, parse_special)}.
 *
 * @param addSpecial   add BOS and/or EOS around the result when the model asks for them
 *                     ({@code tokenizer.ggml.add_bos_token}, {@code add_eos_token})
 * @param parseSpecial recognise control tokens written in the text (such as {@code <|im_start|>}) as
 *                     single tokens; when false they are tokenized as ordinary text. User-defined
 *                     tokens are recognised either way, as in llama.cpp and Hugging Face.
 */
public record EncodeOptions(boolean addSpecial, boolean parseSpecial) {

    /** Plain text: nothing added, control-token text tokenized as text. */
    public static final EncodeOptions TEXT = new EncodeOptions(false, false);

    /** A prompt as a server sees it (a rendered chat template): BOS/EOS per the model, control tokens parsed. */
    public static final EncodeOptions PROMPT = new EncodeOptions(true, true);
}
