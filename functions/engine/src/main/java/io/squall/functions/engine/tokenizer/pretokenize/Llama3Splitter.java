package io.squall.functions.engine.tokenizer.pretokenize;

import io.squall.functions.engine.tokenizer.core.IntList;

import static io.squall.functions.engine.tokenizer.pretokenize.CodepointClass.LETTER;
import static io.squall.functions.engine.tokenizer.pretokenize.CodepointClass.NUMBER;
import static io.squall.functions.engine.tokenizer.pretokenize.CodepointClass.WHITESPACE;

/**
 * The Llama 3 pattern {@code (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
 * ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+} as a scanner, as llama.cpp's
 * {@code unicode_regex_split_custom_llama3}. Contractions are case-insensitive; digits group by three
 * from the left.
 */
final class Llama3Splitter implements Splitter {

    /** The pattern as in Llama 3's tokenizer.json. */
    static final String PATTERN = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

    /** The same pattern as llama.cpp spells it for std::regex, without the inline flag. */
    static final String PATTERN_ADAPTED = "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

    @Override
    public void split(SplitText text, IntList fragments, IntList out) {
        int[] cps = text.codePoints;
        int from = 0;
        for (int f = 0; f < fragments.size(); f++) {
            int to = from + fragments.get(f);
            int pos = from;
            while (pos < to) {
                pos = emitFrom(text, cps, pos, from, to, out);
            }
            from = to;
        }
    }

    /** Emits the piece(s) starting at {@code pos}; returns where the next piece starts. */
    private static int emitFrom(SplitText text, int[] cps, int pos, int from, int to, IntList out) {
        int cp = cps[pos];
        int flags = text.flagsAt(pos, from, to);
        if (cp == '\'' && pos + 1 < to) {
            int next = Character.toLowerCase(cps[pos + 1]);
            if (next == 's' || next == 't' || next == 'm' || next == 'd') {
                return emit(out, pos, pos + 2);
            }
            if (pos + 2 < to) {
                int nextNext = Character.toLowerCase(cps[pos + 2]);
                if (next == 'r' && nextNext == 'e' || next == 'v' && nextNext == 'e' || next == 'l' && nextNext == 'l') {
                    return emit(out, pos, pos + 3);
                }
            }
        }
        if (!isLineBreak(cp) && (flags & NUMBER) == 0
                && ((flags & LETTER) != 0 || (text.flagsAt(pos + 1, from, to) & LETTER) != 0)) {
            int end = pos + 1;
            while ((text.flagsAt(end, from, to) & LETTER) != 0) {
                end++;
            }
            return emit(out, pos, end);
        }
        if ((flags & NUMBER) != 0) {
            int end = pos;
            while ((text.flagsAt(end, from, to) & NUMBER) != 0) {
                end++;
            }
            for (int start = pos; start < end; start += 3) {
                emit(out, start, Math.min(start + 3, end));
            }
            return end;
        }
        int start = cp == ' ' ? pos + 1 : pos;
        int flags2 = text.flagsAt(start, from, to);
        if ((flags2 & (WHITESPACE | LETTER | NUMBER)) == 0) { // the current code point exists, so llama.cpp's flags test holds
            int end = start;
            while ((flags2 & (WHITESPACE | LETTER | NUMBER)) == 0 && flags2 != 0) {
                flags2 = text.flagsAt(++end, from, to);
            }
            while (end < to && isLineBreak(cps[end])) {
                end++;
            }
            return emit(out, pos, end);
        }
        int spaces = 0;
        int lastLineBreakEnd = 0;
        while ((text.flagsAt(pos + spaces, from, to) & WHITESPACE) != 0) {
            if (isLineBreak(cps[pos + spaces])) {
                lastLineBreakEnd = pos + spaces + 1;
            }
            spaces++;
        }
        if (lastLineBreakEnd > 0) {
            return emit(out, pos, lastLineBreakEnd); // \s*[\r\n]+
        }
        if (spaces > 1 && pos + spaces < to) {
            return emit(out, pos, pos + spaces - 1); // \s+(?!\S)
        }
        return emit(out, pos, pos + Math.max(spaces, 1));
    }

    private static boolean isLineBreak(int cp) {
        return cp == '\r' || cp == '\n';
    }

    private static int emit(IntList out, int start, int end) {
        out.add(end - start);
        return end;
    }
}
