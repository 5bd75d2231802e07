package io.squall.functions.engine.tokenizer.core;

/** UTF-8 helpers that match llama.cpp's handling of text. */
public final class Utf8 {

    private static final int REPLACEMENT = 0xFFFD;

    private Utf8() {
    }

    /**
     * The code points of {@code text}, with unpaired surrogates replaced by U+FFFD (the Java
     * counterpart of llama.cpp turning invalid UTF-8 into U+FFFD).
     */
    public static int[] codePoints(CharSequence text) {
        int[] result = new int[text.length()];
        int n = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                result[n++] = Character.toCodePoint(c, text.charAt(++i));
            } else {
                result[n++] = Character.isSurrogate(c) ? REPLACEMENT : c;
            }
        }
        return n == result.length ? result : java.util.Arrays.copyOf(result, n);
    }

    /** Appends the UTF-8 encoding of {@code cp} to {@code out} at {@code pos}; returns the new position. */
    public static int encode(int cp, byte[] out, int pos) {
        if (cp < 0x80) {
            out[pos++] = (byte) cp;
        } else if (cp < 0x800) {
            out[pos++] = (byte) (0xC0 | cp >> 6);
            out[pos++] = (byte) (0x80 | cp & 0x3F);
        } else if (cp < 0x10000) {
            out[pos++] = (byte) (0xE0 | cp >> 12);
            out[pos++] = (byte) (0x80 | cp >> 6 & 0x3F);
            out[pos++] = (byte) (0x80 | cp & 0x3F);
        } else {
            out[pos++] = (byte) (0xF0 | cp >> 18);
            out[pos++] = (byte) (0x80 | cp >> 12 & 0x3F);
            out[pos++] = (byte) (0x80 | cp >> 6 & 0x3F);
            out[pos++] = (byte) (0x80 | cp & 0x3F);
        }
        return pos;
    }

    /**
     * How many bytes at the end of {@code bytes[0, length)} form the start of a UTF-8 character that
     * more bytes could still complete: 0 when the data ends on a character boundary or with bytes that
     * are invalid whatever follows. Follows the well-formed ranges of Unicode table 3-7 (no overlong
     * forms, no surrogates, nothing above U+10FFFF).
     */
    public static int incompleteTail(byte[] bytes, int length) {
        for (int back = 1; back <= 3 && back <= length; back++) {
            int b = bytes[length - back] & 0xFF;
            if ((b & 0xC0) == 0x80) {
                continue; // continuation byte: the lead is further back
            }
            int need = b >= 0xC2 && b <= 0xDF ? 2 : b >= 0xE0 && b <= 0xEF ? 3 : b >= 0xF0 && b <= 0xF4 ? 4 : 1;
            if (back >= need) {
                return 0; // complete, or a single invalid byte
            }
            if (back >= 2 && !validSecondByte(b, bytes[length - back + 1] & 0xFF)) {
                return 0;
            }
            return back;
        }
        return 0;
    }

    private static boolean validSecondByte(int lead, int second) {
        return switch (lead) {
            case 0xE0 -> second >= 0xA0 && second <= 0xBF;
            case 0xED -> second >= 0x80 && second <= 0x9F;
            case 0xF0 -> second >= 0x90 && second <= 0xBF;
            case 0xF4 -> second >= 0x80 && second <= 0x8F;
            default -> second >= 0x80 && second <= 0xBF;
        };
    }
}
