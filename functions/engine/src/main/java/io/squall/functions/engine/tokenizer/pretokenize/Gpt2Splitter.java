package io.squall.functions.engine.tokenizer.pretokenize;

import io.squall.functions.engine.tokenizer.core.IntList;

import static io.squall.functions.engine.tokenizer.pretokenize.CodepointClass.LETTER;
import static io.squall.functions.engine.tokenizer.pretokenize.CodepointClass.NUMBER;
import static io.squall.functions.engine.tokenizer.pretokenize.CodepointClass.WHITESPACE;

/**
 * The GPT-2 pattern {@code 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+}
 * as a scanner, as llama.cpp's {@code unicode_regex_split_custom_gpt2} (contractions lower case only).
 */
final class Gpt2Splitter implements Splitter {

    /** The regex this scanner implements, exactly as llama.cpp spells it. */
    static final String PATTERN = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)";

    @Override
    public void split(SplitText text, IntList fragments, IntList out) {
        int[] cps = text.codePoints;
        int from = 0;
        for (int f = 0; f < fragments.size(); f++) {
            int to = from + fragments.get(f);
            int pos = from;
            while (pos < to) {
                int end = match(text, cps, pos, from, to);
                out.add(end - pos);
                pos = end;
            }
            from = to;
        }
    }

    /** The end of the piece starting at {@code pos}. */
    private static int match(SplitText text, int[] cps, int pos, int from, int to) {
        int cp = cps[pos];
        if (cp == '\'' && pos + 1 < to) {
            int next = cps[pos + 1];
            if (next == 's' || next == 't' || next == 'm' || next == 'd') {
                return pos + 2;
            }
            if (pos + 2 < to) {
                int nextNext = cps[pos + 2];
                if (next == 'r' && nextNext == 'e' || next == 'v' && nextNext == 'e' || next == 'l' && nextNext == 'l') {
                    return pos + 3;
                }
            }
        }
        int start = cp == ' ' ? pos + 1 : pos;
        int flags = text.flagsAt(start, from, to);
        if ((flags & LETTER) != 0) {
            return runOf(text, start, from, to, LETTER);
        }
        if ((flags & NUMBER) != 0) {
            return runOf(text, start, from, to, NUMBER);
        }
        if ((flags & (WHITESPACE | LETTER | NUMBER)) == 0 && flags != 0) {
            int end = start;
            while ((flags & (WHITESPACE | LETTER | NUMBER)) == 0 && flags != 0) {
                flags = text.flagsAt(++end, from, to);
            }
            return end;
        }
        int spaces = 0;
        while ((text.flagsAt(pos + spaces, from, to) & WHITESPACE) != 0) {
            spaces++;
        }
        if (spaces > 1 && pos + spaces < to) {
            return pos + spaces - 1; // \s+(?!\S): leave the last space to the next word
        }
        return pos + Math.max(spaces, 1);
    }

    private static int runOf(SplitText text, int start, int from, int to, int flag) {
        int end = start;
        while ((text.flagsAt(end, from, to) & flag) != 0) {
            end++;
        }
        return end;
    }
}
