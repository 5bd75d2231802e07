/**
 * Byte-level BPE (GGUF model {@code gpt2}) as llama.cpp's {@code llm_tokenizer_bpe}: pre-tokenize
 * into words, spell each word's UTF-8 bytes with GPT-2's byte-to-unicode alphabet, merge adjacent
 * symbols lowest merge rank first.
 */
package io.squall.functions.engine.tokenizer.bpe;
