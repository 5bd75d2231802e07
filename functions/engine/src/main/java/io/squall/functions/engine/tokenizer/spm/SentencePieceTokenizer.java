package io.squall.functions.engine.tokenizer.spm;

import io.squall.functions.engine.tokenizer.SpecialTokens;
import io.squall.functions.engine.tokenizer.TokenizerModel;
import io.squall.functions.engine.tokenizer.Vocabulary;
import io.squall.functions.engine.tokenizer.core.AbstractTokenizer;
import io.squall.functions.engine.tokenizer.core.IntList;
import io.squall.functions.engine.tokenizer.core.TokenTable;
import io.squall.functions.engine.tokenizer.core.Utf8;

import java.nio.charset.StandardCharsets;
import java.util.PriorityQueue;

/**
 * SentencePiece tokenization, llama.cpp's {@code llm_tokenizer_spm}:
 * <ol>
 *   <li>a text fragment at the start of the input or right after a special token gets a space prefix
 *       when the vocabulary asks for it ({@code add_space_prefix}, default true); every space becomes
 *       {@code ▁} (U+2581);</li>
 *   <li>every code point starts as one symbol; every adjacent pair whose concatenation is a token
 *       enters a priority queue ordered by that token's score (highest first, then leftmost);</li>
 *   <li>the best pair merges if both symbols are still as they were queued, and the new symbol's pairs
 *       with its neighbours are queued;</li>
 *   <li>each final symbol is emitted as its token, or, when no token spells it (an unknown single
 *       character), as the byte tokens {@code <0xXX>} of its UTF-8 bytes.</li>
 * </ol>
 * llama.cpp also keeps a map to re-split final symbols that are not tokens; every merged symbol is a
 * token by construction, so only single characters can miss and that map never applies — it is not
 * reproduced here.
 *
 * <p>Where the vocabulary lacks a byte token llama.cpp fails; Squall emits the unknown token instead
 * (or fails with a clear message if there is none). Immutable and thread-safe.
 */
public final class SentencePieceTokenizer extends AbstractTokenizer {

    private static final char SPACE_MARK = '\u2581';

    private final int[] byteTokens = new int[256];

    public SentencePieceTokenizer(Vocabulary vocabulary) {
        super(requireModel(vocabulary), new TokenTable(vocabulary, SentencePieceTokenizer::normalPiece), false);
        for (int b = 0; b < 256; b++) {
            int id = table.id(String.format("<0x%02X>", b));
            if (id == SpecialTokens.NONE && b < 0x80) {
                id = table.id(String.valueOf((char) b));
            }
            byteTokens[b] = id;
        }
    }

    private static Vocabulary requireModel(Vocabulary vocabulary) {
        if (vocabulary.model() != TokenizerModel.SENTENCEPIECE) {
            throw new IllegalArgumentException("SentencePieceTokenizer needs a SentencePiece vocabulary, got "
                    + vocabulary.model());
        }
        return vocabulary;
    }

    private static byte[] normalPiece(String text) {
        return text.replace(SPACE_MARK, ' ').getBytes(StandardCharsets.UTF_8);
    }

    @Override
    protected void encodeText(String text, boolean afterSpecial, IntList out) {
        String prefixed = vocabulary.flags().addSpacePrefix() && afterSpecial ? " " + text : text;
        String escaped = sanitize(prefixed).replace(' ', SPACE_MARK);
        if (!escaped.isEmpty()) {
            new Session(escaped).tokenize(out);
        }
    }

    /** Replaces unpaired surrogates by U+FFFD; returns {@code text} itself when there are none. */
    private static String sanitize(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (Character.isSurrogate(text.charAt(i))) {
                int[] cps = Utf8.codePoints(text);
                return new String(cps, 0, cps.length);
            }
        }
        return text;
    }

    private record Bigram(int left, int right, float score, int size) {
    }

    /** The symbol chain of one fragment; symbol extents are char offsets into the fragment. */
    private final class Session {
        private final String text;
        private final int[] start;
        private final int[] length;
        private final int[] prev;
        private final int[] next;
        private final PriorityQueue<Bigram> queue = new PriorityQueue<>((a, b) ->
                a.score() != b.score() ? Float.compare(b.score(), a.score()) : Integer.compare(a.left(), b.left()));

        Session(String text) {
            this.text = text;
            int symbols = text.codePointCount(0, text.length());
            start = new int[symbols];
            length = new int[symbols];
            prev = new int[symbols];
            next = new int[symbols];
            int offset = 0;
            for (int i = 0; i < symbols; i++) {
                int chars = Character.charCount(text.codePointAt(offset));
                start[i] = offset;
                length[i] = chars;
                prev[i] = i - 1;
                offset += chars;
                next[i] = offset == text.length() ? -1 : i + 1;
            }
        }

        void tokenize(IntList out) {
            for (int i = 1; i < start.length; i++) {
                tryAddBigram(i - 1, i);
            }
            while (!queue.isEmpty()) {
                Bigram bigram = queue.poll();
                int left = bigram.left();
                int right = bigram.right();
                if (length[left] == 0 || length[right] == 0 || length[left] + length[right] != bigram.size()) {
                    continue; // one side changed since the pair was queued
                }
                length[left] += length[right];
                length[right] = 0;
                next[left] = next[right];
                if (next[right] >= 0) {
                    prev[next[right]] = left;
                }
                tryAddBigram(prev[left], left);
                tryAddBigram(left, next[left]);
            }
            for (int i = 0; i != -1; i = next[i]) {
                emit(text.substring(start[i], start[i] + length[i]), out);
            }
        }

        private void tryAddBigram(int left, int right) {
            if (left == -1 || right == -1) {
                return;
            }
            int size = length[left] + length[right];
            int token = table.id(text.substring(start[left], start[left] + size));
            if (token != SpecialTokens.NONE) {
                queue.add(new Bigram(left, right, table.score(token), size));
            }
        }

        private void emit(String symbol, IntList out) {
            int token = table.id(symbol);
            if (token != SpecialTokens.NONE) {
                out.add(token);
                return;
            }
            for (byte b : symbol.getBytes(StandardCharsets.UTF_8)) {
                out.add(byteToken(b & 0xFF));
            }
        }
    }

    private int byteToken(int b) {
        if (byteTokens[b] != SpecialTokens.NONE) {
            return byteTokens[b];
        }
        int unknown = table.specials().unknown();
        if (unknown == SpecialTokens.NONE) {
            throw new IllegalStateException(String.format(
                    "text needs byte fallback for byte 0x%02X but the vocabulary has neither <0x%02X> nor an unknown token",
                    b, b));
        }
        return unknown;
    }
}
