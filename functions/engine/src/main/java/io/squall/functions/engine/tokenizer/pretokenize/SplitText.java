package io.squall.functions.engine.tokenizer.pretokenize;

/**
 * The code points of one text fragment being pre-tokenized, with the two views the regex splitters
 * need, built on first use: llama.cpp's collapsed text and its wide text. Not thread-safe.
 */
final class SplitText {

    /** Collapsed stand-ins (llama.cpp's {@code k_ucat_cpt}): one character per category. */
    static final char COLLAPSED_OTHER = '\u00D0';
    static final char COLLAPSED_NUMBER = '\u00D1';
    static final char COLLAPSED_LETTER = '\u00D2';
    static final char COLLAPSED_PUNCTUATION = '\u00D3';
    static final char COLLAPSED_MARK = '\u00D4';
    static final char COLLAPSED_SYMBOL = '\u00D5';
    /** Non-ASCII whitespace becomes a vertical tab, which {@code \s} matches. */
    static final char COLLAPSED_WHITESPACE = '\u000B';

    final int[] codePoints;
    private String collapsed;
    private String wide;
    private int[] charIndex;
    private int[] codePointIndex;

    SplitText(int[] codePoints) {
        this.codePoints = codePoints;
    }

    int length() {
        return codePoints.length;
    }

    /** The flags of the code point at {@code pos} if {@code pos} is in {@code [from, to)}, else 0. */
    int flagsAt(int pos, int from, int to) {
        return pos >= from && pos < to ? CodepointClass.of(codePoints[pos]) : 0;
    }

    /**
     * One character per code point: ASCII as is, other code points as their category's stand-in.
     * Character indices equal code point indices.
     */
    String collapsed() {
        if (collapsed == null) {
            char[] chars = new char[codePoints.length];
            for (int i = 0; i < chars.length; i++) {
                chars[i] = collapse(codePoints[i]);
            }
            collapsed = new String(chars);
        }
        return collapsed;
    }

    private static char collapse(int cp) {
        if (cp < 0x80) {
            return (char) cp;
        }
        int flags = CodepointClass.of(cp);
        if ((flags & CodepointClass.WHITESPACE) != 0) {
            return COLLAPSED_WHITESPACE;
        }
        if ((flags & CodepointClass.NUMBER) != 0) {
            return COLLAPSED_NUMBER;
        }
        if ((flags & CodepointClass.LETTER) != 0) {
            return COLLAPSED_LETTER;
        }
        if ((flags & CodepointClass.PUNCTUATION) != 0) {
            return COLLAPSED_PUNCTUATION;
        }
        if ((flags & CodepointClass.MARK) != 0) {
            return COLLAPSED_MARK;
        }
        if ((flags & CodepointClass.SYMBOL) != 0) {
            return COLLAPSED_SYMBOL;
        }
        return COLLAPSED_OTHER;
    }

    /** The text itself with non-ASCII whitespace replaced by a vertical tab (llama.cpp's wregex input). */
    String wide() {
        if (wide == null) {
            StringBuilder text = new StringBuilder(codePoints.length);
            charIndex = new int[codePoints.length + 1];
            for (int i = 0; i < codePoints.length; i++) {
                charIndex[i] = text.length();
                int cp = codePoints[i];
                text.appendCodePoint(cp >= 0x80 && CodepointClass.isWhitespace(cp) ? COLLAPSED_WHITESPACE : cp);
            }
            charIndex[codePoints.length] = text.length();
            codePointIndex = new int[text.length() + 1];
            for (int i = 0; i <= codePoints.length; i++) {
                codePointIndex[charIndex[i]] = i;
            }
            wide = text.toString();
        }
        return wide;
    }

    /** The index in {@link #wide()} of code point {@code pos}. */
    int wideCharIndex(int pos) {
        return charIndex[pos];
    }

    /** The code point at index {@code index} of {@link #wide()} (a code point boundary). */
    int wideCodePointIndex(int index) {
        return codePointIndex[index];
    }
}
