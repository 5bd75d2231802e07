package io.squall.functions.engine.chat;

import java.util.Objects;

/**
 * The model's special token strings that chat templates reference as {@code bos_token} and {@code eos_token}
 * (from the GGUF's {@code tokenizer.ggml.bos_token_id} / {@code eos_token_id}, as text).
 *
 * @param bos beginning-of-sequence text, e.g. {@code <s>}; empty if the model has none; not null
 * @param eos end-of-sequence text, e.g. {@code </s>}; empty if the model has none; not null
 */
public record SpecialTokens(String bos, String eos) {
    /** Rejects nulls; use the empty string for a missing token. */
    public SpecialTokens {
        Objects.requireNonNull(bos, "bos");
        Objects.requireNonNull(eos, "eos");
    }
}
