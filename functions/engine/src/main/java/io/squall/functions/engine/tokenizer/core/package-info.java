/**
 * What the tokenizer implementations share: the indexed vocabulary with llama.cpp's token
 * attributes and inferred special tokens ({@link io.squall.functions.engine.tokenizer.core.TokenTable}),
 * splitting special tokens out of text
 * ({@link io.squall.functions.engine.tokenizer.core.SpecialTokenSplitter}), the encode/decode
 * pipeline ({@link io.squall.functions.engine.tokenizer.core.AbstractTokenizer}) and small UTF-8
 * helpers.
 */
package io.squall.functions.engine.tokenizer.core;
