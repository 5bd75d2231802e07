package io.squall.functions.engine.tokenizer.pretokenize;

import io.squall.functions.engine.tokenizer.core.IntList;

/** One step of a pre-tokenizer: cuts each fragment of a text into smaller fragments. */
interface Splitter {

    /**
     * Cuts the fragments of {@code text} whose lengths (in code points, consecutive from the start)
     * are {@code fragments} and appends the lengths of the pieces to {@code out}. Every code point
     * stays in exactly one piece; pieces are never empty.
     */
    void split(SplitText text, IntList fragments, IntList out);
}
