package io.squall.functions.engine.tokenizer.core;

/**
 * llama.cpp's {@code clean_up_tokenization_spaces} for decoded text (GPT-2 style vocabularies):
 * removes the space before {@code ? ! . ,}, around a lone apostrophe, and before the contractions
 * {@code 's 'm 're 've}. Works on UTF-8 bytes in place, pass for pass as llama.cpp does (its passes
 * read bytes that earlier steps of the same pass may have rewritten, and that is kept).
 */
final class SpaceCleaner {

    private SpaceCleaner() {
    }

    /** Cleans {@code text[0, length)} in place; returns the new length. */
    static int clean(byte[] text, int length) {
        return contractions(loneApostrophes(punctuation(text, length), text), text);
    }

    private static int punctuation(byte[] text, int length) {
        int total = length > 0 ? 1 : 0;
        for (int i = 1; i < length; i++) {
            byte x = text[i];
            if (text[i - 1] == ' ' && (x == '?' || x == '!' || x == '.' || x == ',')) {
                total--;
            }
            text[total++] = x;
        }
        return total;
    }

    private static int loneApostrophes(int length, byte[] text) {
        int total = length > 0 ? 1 : 0;
        for (int i = 1; i < length; i++) {
            byte x = text[i];
            if (x == '\'' && i + 1 < length && text[i - 1] == ' ' && text[i + 1] == ' ') {
                total--;
                text[++i] = 0;
            }
            text[total++] = x;
        }
        return total;
    }

    private static int contractions(int length, byte[] text) {
        int total = length > 0 ? 1 : 0;
        for (int i = 1; i < length; i++) {
            byte x = text[i];
            if (text[i - 1] == ' ' && x == '\'' && i + 1 < length) {
                byte x1 = text[i + 1];
                if (x1 == 's' || x1 == 'm') {
                    total--;
                } else if (x1 != 't' && x1 != 'd' && i + 2 < length) {
                    byte x2 = text[i + 2];
                    if ((x1 == 'r' || x1 == 'v') && x2 == 'e') {
                        total--;
                    }
                }
            }
            text[total++] = x;
        }
        return total;
    }
}
