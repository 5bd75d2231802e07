package io.squall.functions.engine.tokenizer.bpe;

/**
 * GPT-2's reversible byte ↔ character mapping: printable bytes ({@code !..~}, {@code ¡..¬},
 * {@code ®..ÿ}) stand for themselves; the other 68 bytes map, in byte order, to U+0100, U+0101, ...
 * so that every byte is a visible character (space becomes {@code Ġ}, newline {@code Ċ}).
 */
public final class ByteLevelAlphabet {

    private static final char[] BYTE_TO_CHAR = new char[256];
    private static final int[] CHAR_TO_BYTE = new int[0x100 + 68];

    static {
        java.util.Arrays.fill(CHAR_TO_BYTE, -1);
        int next = 0x100;
        for (int b = 0; b < 256; b++) {
            boolean printable = b >= 0x21 && b <= 0x7E || b >= 0xA1 && b <= 0xAC || b >= 0xAE;
            char c = printable ? (char) b : (char) next++;
            BYTE_TO_CHAR[b] = c;
            CHAR_TO_BYTE[c] = b;
        }
    }

    private ByteLevelAlphabet() {
    }

    /** The character that spells byte {@code b} (0..255). */
    public static char charOf(int b) {
        return BYTE_TO_CHAR[b];
    }

    /** The byte spelled by code point {@code cp}, or -1 if {@code cp} is not in the alphabet. */
    public static int byteOf(int cp) {
        return cp >= 0 && cp < CHAR_TO_BYTE.length ? CHAR_TO_BYTE[cp] : -1;
    }
}
