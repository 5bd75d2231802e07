package io.squall.functions.engine.tokenizer.pretokenize;

/**
 * Unicode classification of code points as llama.cpp's tables ({@code unicode-data.cpp}) give it:
 * one general category (letter, number, separator, mark, punctuation, symbol, other) plus a
 * whitespace bit for the 25 code points with the Unicode White_Space property.
 *
 * <p>Categories come from {@link Character#getType(int)}. llama.cpp generated its tables from
 * Python's {@code regex} module, possibly at an older Unicode version than this JDK: code points
 * assigned only in newer Unicode versions are "other" there and classified here. Outside such new
 * characters the two agree.
 */
public final class CodepointClass {

    public static final int NUMBER = 1;
    public static final int LETTER = 1 << 1;
    public static final int SEPARATOR = 1 << 2;
    public static final int MARK = 1 << 3;
    public static final int PUNCTUATION = 1 << 4;
    public static final int SYMBOL = 1 << 5;
    /** Category C: control, format, private use, surrogate, unassigned. */
    public static final int OTHER = 1 << 6;
    public static final int WHITESPACE = 1 << 7;

    private static final byte[] BMP = new byte[0x10000];

    static {
        for (int cp = 0; cp < BMP.length; cp++) {
            BMP[cp] = (byte) compute(cp);
        }
    }

    private CodepointClass() {
    }

    /** The flags of {@code cp}: exactly one category bit, plus {@link #WHITESPACE} where it applies. */
    public static int of(int cp) {
        return cp < 0x10000 ? BMP[cp] & 0xFF : compute(cp);
    }

    public static boolean isWhitespace(int cp) {
        return (of(cp) & WHITESPACE) != 0;
    }

    private static int compute(int cp) {
        int category = switch (Character.getType(cp)) {
            case Character.UPPERCASE_LETTER, Character.LOWERCASE_LETTER, Character.TITLECASE_LETTER,
                 Character.MODIFIER_LETTER, Character.OTHER_LETTER -> LETTER;
            case Character.DECIMAL_DIGIT_NUMBER, Character.LETTER_NUMBER, Character.OTHER_NUMBER -> NUMBER;
            case Character.SPACE_SEPARATOR, Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR -> SEPARATOR;
            case Character.NON_SPACING_MARK, Character.ENCLOSING_MARK, Character.COMBINING_SPACING_MARK -> MARK;
            case Character.CONNECTOR_PUNCTUATION, Character.DASH_PUNCTUATION, Character.START_PUNCTUATION,
                 Character.END_PUNCTUATION, Character.INITIAL_QUOTE_PUNCTUATION, Character.FINAL_QUOTE_PUNCTUATION,
                 Character.OTHER_PUNCTUATION -> PUNCTUATION;
            case Character.MATH_SYMBOL, Character.CURRENCY_SYMBOL, Character.MODIFIER_SYMBOL,
                 Character.OTHER_SYMBOL -> SYMBOL;
            default -> OTHER;
        };
        return category | (whiteSpace(cp) ? WHITESPACE : 0);
    }

    /** The Unicode White_Space property (llama.cpp's {@code unicode_set_whitespace}). */
    private static boolean whiteSpace(int cp) {
        return cp >= 0x09 && cp <= 0x0D || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680
                || cp >= 0x2000 && cp <= 0x200A || cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F
                || cp == 0x3000;
    }
}
