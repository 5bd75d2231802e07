package io.squall.functions.engine.tokenizer;

import io.squall.functions.engine.tokenizer.SpecialTokens.Role;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/** Small vocabularies built in code for unit tests. */
public final class TestVocabularies {

    private TestVocabularies() {
    }

    /** A token with its type and score. */
    public record Entry(String text, TokenType type, float score) {

        public static Entry normal(String text, float score) {
            return new Entry(text, TokenType.NORMAL, score);
        }

        public static Entry of(String text, TokenType type) {
            return new Entry(text, type, 0);
        }
    }

    /**
     * A SentencePiece vocabulary: {@code <unk>} 0, {@code <s>} 1, {@code </s>} 2, the 256 byte tokens
     * {@code <0x00>..<0xFF>} (ids 3..258), then {@code entries} in order.
     */
    public static Vocabulary sentencePiece(Entry... entries) {
        List<Entry> all = new ArrayList<>();
        all.add(Entry.of("<unk>", TokenType.UNKNOWN));
        all.add(Entry.of("<s>", TokenType.CONTROL));
        all.add(Entry.of("</s>", TokenType.CONTROL));
        for (int b = 0; b < 256; b++) {
            all.add(Entry.of(String.format("<0x%02X>", b), TokenType.BYTE));
        }
        all.addAll(Arrays.asList(entries));
        return vocabulary(TokenizerModel.SENTENCEPIECE, "default", all, new String[0],
                SpecialTokens.of(Map.of(Role.BOS, 1, Role.EOS, 2, Role.UNKNOWN, 0)),
                new Vocabulary.Flags(true, false, true));
    }

    /**
     * A byte-level BPE vocabulary: the 256 alphabet characters in byte order (ids 0..255), then one token
     * per merge result in merge order, then {@code extra} tokens. No BOS added.
     */
    public static Vocabulary bytePair(String pre, List<String> merges, Entry... extra) {
        List<Entry> all = new ArrayList<>();
        for (int b = 0; b < 256; b++) {
            all.add(Entry.normal(String.valueOf(io.squall.functions.engine.tokenizer.bpe.ByteLevelAlphabet.charOf(b)), 0));
        }
        for (String merge : merges) {
            all.add(Entry.normal(merge.replace(" ", ""), 0));
        }
        all.addAll(Arrays.asList(extra));
        return vocabulary(TokenizerModel.BYTE_LEVEL_BPE, pre, all, merges.toArray(String[]::new),
                SpecialTokens.none(), new Vocabulary.Flags(false, false, false));
    }

    static Vocabulary vocabulary(TokenizerModel model, String pre, List<Entry> entries, String[] merges,
                                 SpecialTokens specials, Vocabulary.Flags flags) {
        String[] tokens = entries.stream().map(Entry::text).toArray(String[]::new);
        float[] scores = new float[tokens.length];
        int[] types = new int[tokens.length];
        for (int i = 0; i < tokens.length; i++) {
            scores[i] = entries.get(i).score();
            types[i] = entries.get(i).type().code();
        }
        return new Vocabulary(model, pre, tokens, scores, types, merges, specials, flags);
    }

    /** The id of {@code text} in {@code tokenizer}'s vocabulary. */
    public static int id(Tokenizer tokenizer, String text) {
        String[] tokens = tokenizer.vocabulary().tokens();
        for (int i = 0; i < tokens.length; i++) {
            if (tokens[i].equals(text)) {
                return i;
            }
        }
        throw new IllegalArgumentException("no token " + text);
    }
}
