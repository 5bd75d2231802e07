package io.squall.functions.engine.tokenizer;

/**
 * The type of a vocabulary entry as GGUF stores it in {@code tokenizer.ggml.token_type}
 * (llama.cpp's {@code llama_token_type}). Use {@link #code()} for the stored integer.
 */
public enum TokenType {
    UNDEFINED(0),
    NORMAL(1),
    UNKNOWN(2),
    /** Structural tokens such as {@code <s>} or {@code <|im_end|>}: parsed from text only on request, hidden when decoding. */
    CONTROL(3),
    /** Added tokens that are always split out of text and always rendered. */
    USER_DEFINED(4),
    UNUSED(5),
    /** SentencePiece byte-fallback tokens {@code <0xXX>}. */
    BYTE(6);

    private final int code;

    TokenType(int code) {
        this.code = code;
    }

    /** The integer stored in GGUF. */
    public int code() {
        return code;
    }

    /** The type stored as {@code code}; unknown codes are {@link #UNDEFINED}, as in llama.cpp. */
    public static TokenType fromCode(int code) {
        return code >= 0 && code < VALUES.length ? VALUES[code] : UNDEFINED;
    }

    private static final TokenType[] VALUES = values();
}
