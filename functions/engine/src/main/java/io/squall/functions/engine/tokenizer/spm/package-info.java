/**
 * SentencePiece tokenization (GGUF model {@code llama}) as llama.cpp's {@code llm_tokenizer_spm}:
 * spaces become {@code ▁}, adjacent symbols merge highest score first, and text no token covers falls
 * back to byte tokens {@code <0xXX>}.
 */
package io.squall.functions.engine.tokenizer.spm;
