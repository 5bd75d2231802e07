package io.squall.functions.engine.tokenizer.core;

import io.squall.functions.engine.tokenizer.TokenType;

/**
 * Per-token attribute bits, llama.cpp's {@code llama_token_attr}. A token's attributes start from its
 * GGUF {@link TokenType}; llama.cpp then adjusts some by token text (see {@link SpecialTokenInference}).
 */
public final class TokenAttributes {

    public static final int UNKNOWN = 1;
    public static final int UNUSED = 1 << 1;
    public static final int NORMAL = 1 << 2;
    public static final int CONTROL = 1 << 3;
    public static final int USER_DEFINED = 1 << 4;
    public static final int BYTE = 1 << 5;

    /** Tokens rendered only when special tokens are rendered. */
    public static final int HIDDEN_UNLESS_SPECIAL = UNKNOWN | CONTROL;

    /** Tokens that can be split out of text before tokenization. */
    public static final int SPLIT_FROM_TEXT = CONTROL | USER_DEFINED | UNKNOWN;

    private TokenAttributes() {
    }

    /** The attributes of a token of {@code type}. */
    public static int of(TokenType type) {
        return switch (type) {
            case UNDEFINED -> 0;
            case NORMAL -> NORMAL;
            case UNKNOWN -> UNKNOWN;
            case CONTROL -> CONTROL;
            case USER_DEFINED -> USER_DEFINED;
            case UNUSED -> UNUSED;
            case BYTE -> BYTE;
        };
    }
}
