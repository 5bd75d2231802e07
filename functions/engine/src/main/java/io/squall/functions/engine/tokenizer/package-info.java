/**
 * Tokenizers that reproduce llama.cpp's tokenization of GGUF vocabularies exactly.
 *
 * <p>{@link io.squall.functions.engine.tokenizer.Tokenizer} is the API the engine and the gateway
 * use: encode text to token ids, decode ids to text, the raw bytes of one token, the special and
 * end-of-generation ids. {@link io.squall.functions.engine.tokenizer.Tokenizers} builds one from a
 * {@link io.squall.functions.engine.tokenizer.Vocabulary} (the tokenizer part of a GGUF file).
 * {@link io.squall.functions.engine.tokenizer.IncrementalDecoder} turns a stream of generated ids
 * into text without ever splitting a UTF-8 character.
 *
 * <p>Implementations live in sub-packages: {@code spm} (SentencePiece, GGUF model {@code llama}),
 * {@code bpe} (byte-level BPE, GGUF model {@code gpt2}), {@code pretokenize} (the pre-tokenizer
 * splitters selected by {@code tokenizer.ggml.pre}) and {@code core} (what both share: the indexed
 * vocabulary, special-token splitting, detokenization).
 */
package io.squall.functions.engine.tokenizer;
