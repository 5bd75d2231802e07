package io.squall.functions.engine.tokenizer;

import java.util.Objects;

/**
 * The tokenizer part of a model file: what llama.cpp reads from the {@code tokenizer.ggml.*} keys,
 * with llama.cpp's defaults already applied for keys the file leaves out.
 *
 * <p>The arrays are taken as they are, not copied (vocabularies have up to a few hundred thousand
 * entries); callers must not modify them afterwards.
 *
 * @param model        the algorithm ({@code tokenizer.ggml.model})
 * @param preTokenizer the pre-tokenizer name ({@code tokenizer.ggml.pre}); {@code "default"} when
 *                     absent. Only byte-level BPE uses it.
 * @param tokens       token texts by id ({@code tokenizer.ggml.tokens}): SentencePiece spells spaces
 *                     {@code ▁}, byte-level BPE spells bytes with the GPT-2 byte-to-unicode alphabet
 * @param scores       merge scores by id ({@code tokenizer.ggml.scores}); SentencePiece merges the
 *                     highest-scoring pair first. All zero when the file has none.
 * @param tokenTypes   {@link TokenType} codes by id ({@code tokenizer.ggml.token_type}); all
 *                     {@link TokenType#NORMAL} when the file has none
 * @param merges       BPE merges {@code "left right"} in rank order ({@code tokenizer.ggml.merges});
 *                     empty for SentencePiece
 * @param specials     the declared special-token ids
 * @param flags        how encoding adds BOS, EOS and the SentencePiece space prefix
 */
public record Vocabulary(
        TokenizerModel model,
        String preTokenizer,
        String[] tokens,
        float[] scores,
        int[] tokenTypes,
        String[] merges,
        SpecialTokens specials,
        Flags flags) {

    /**
     * Encoding flags.
     *
     * @param addBos         add BOS when encoding with {@link EncodeOptions#addSpecial()}
     *                       ({@code tokenizer.ggml.add_bos_token})
     * @param addEos         add EOS likewise ({@code tokenizer.ggml.add_eos_token})
     * @param addSpacePrefix SentencePiece: prefix text with a space, so that a first word is tokenized
     *                       like a word inside a sentence ({@code tokenizer.ggml.add_space_prefix})
     */
    public record Flags(boolean addBos, boolean addEos, boolean addSpacePrefix) {
    }

    public Vocabulary {
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(preTokenizer, "preTokenizer");
        Objects.requireNonNull(tokens, "tokens");
        Objects.requireNonNull(scores, "scores");
        Objects.requireNonNull(tokenTypes, "tokenTypes");
        Objects.requireNonNull(merges, "merges");
        Objects.requireNonNull(specials, "specials");
        Objects.requireNonNull(flags, "flags");
        if (tokens.length == 0) {
            throw new IllegalArgumentException("vocabulary has no tokens");
        }
        if (scores.length < tokens.length) {
            throw new IllegalArgumentException("vocabulary has " + tokens.length + " tokens but only "
                    + scores.length + " scores");
        }
        if (tokenTypes.length < tokens.length) {
            throw new IllegalArgumentException("vocabulary has " + tokens.length + " tokens but only "
                    + tokenTypes.length + " token types");
        }
        for (SpecialTokens.Role role : SpecialTokens.Role.values()) {
            int id = specials.id(role);
            if (id >= tokens.length) {
                throw new IllegalArgumentException("special token " + role + " = " + id
                        + " is outside the vocabulary of " + tokens.length + " tokens");
            }
        }
        if (flags.addBos() && !specials.has(SpecialTokens.Role.BOS)) {
            throw new IllegalArgumentException("vocabulary adds BOS but declares no BOS token");
        }
        if (flags.addEos() && !specials.has(SpecialTokens.Role.EOS)) {
            throw new IllegalArgumentException("vocabulary adds EOS but declares no EOS token");
        }
    }

    /** The number of tokens. */
    public int size() {
        return tokens.length;
    }
}
