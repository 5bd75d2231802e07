/**
 * Pre-tokenizers for byte-level BPE, selected by {@code tokenizer.ggml.pre}, reproducing llama.cpp's
 * {@code unicode_regex_split}: a list of splitters applied in turn, each cutting every fragment left
 * by the previous one into the regex matches and the text between them.
 *
 * <p>The GPT-2 and Llama 3 patterns run as hand-written scanners (as in llama.cpp); other patterns run
 * on {@link java.util.regex.Pattern} over llama.cpp's "collapsed" text, where every non-ASCII code
 * point is replaced by one character standing for its Unicode category, so that {@code \p{L}},
 * {@code \p{N}}, {@code \s}, ... mean exactly what they mean in llama.cpp (its Unicode tables, not
 * the regex engine's). {@link io.squall.functions.engine.tokenizer.pretokenize.CodepointClass} holds
 * those categories.
 */
package io.squall.functions.engine.tokenizer.pretokenize;
