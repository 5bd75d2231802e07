package io.squall.functions.engine.tokenizer.spm;

import io.squall.functions.engine.tokenizer.DecodeOptions;
import io.squall.functions.engine.tokenizer.EncodeOptions;
import io.squall.functions.engine.tokenizer.TestVocabularies.Entry;
import io.squall.functions.engine.tokenizer.TokenType;
import io.squall.functions.engine.tokenizer.Tokenizer;
import io.squall.functions.engine.tokenizer.Tokenizers;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static io.squall.functions.engine.tokenizer.TestVocabularies.id;
import static io.squall.functions.engine.tokenizer.TestVocabularies.sentencePiece;
import static org.assertj.core.api.Assertions.assertThat;

class SentencePieceTokenizerTest {

    private final Tokenizer tokenizer = Tokenizers.create(sentencePiece(
            Entry.normal("▁", -10), Entry.normal("h", -10), Entry.normal("e", -10), Entry.normal("l", -10),
            Entry.normal("o", -10), Entry.normal("he", -1), Entry.normal("ll", -2), Entry.normal("llo", -3),
            Entry.normal("▁he", -4), Entry.normal("▁h", -5), Entry.normal("el", -0.5f),
            Entry.of("<|user|>", TokenType.USER_DEFINED)));

    @Test
    void mergesTheHighestScoringPairFirst() {
        // "▁hello": "el" (-0.5) beats "he" (-1), so "he" never forms and "▁h" (-5) merges last
        assertThat(tokenizer.encode("hello", EncodeOptions.TEXT))
                .containsExactly(id(tokenizer, "▁h"), id(tokenizer, "el"), id(tokenizer, "l"), id(tokenizer, "o"));
    }

    @Test
    void unknownCharactersFallBackToTheirUtf8Bytes() {
        int[] ids = tokenizer.encode("h😀", EncodeOptions.TEXT);
        assertThat(ids).containsExactly(id(tokenizer, "▁h"), id(tokenizer, "<0xF0>"), id(tokenizer, "<0x9F>"),
                id(tokenizer, "<0x98>"), id(tokenizer, "<0x80>"));
        assertThat(tokenizer.decode(ids)).isEqualTo("h😀");
    }

    @Test
    void addsTheSpacePrefixAtTheStartAndAfterSpecialTokensOnly() {
        int[] ids = tokenizer.encode("h<s>h h", EncodeOptions.PROMPT);
        assertThat(ids).containsExactly(1, id(tokenizer, "▁h"), 1, id(tokenizer, "▁h"), id(tokenizer, "▁h"));
        assertThat(tokenizer.encode("h", new EncodeOptions(false, true))).containsExactly(id(tokenizer, "▁h"));
    }

    @Test
    void controlTokenTextIsPlainTextUnlessParsingSpecialButUserDefinedTokensAlwaysSplit() {
        assertThat(tokenizer.encode("<s>", EncodeOptions.TEXT)).doesNotContain(1).contains(id(tokenizer, "<0x3C>"));
        assertThat(tokenizer.encode("h<|user|>h", EncodeOptions.TEXT))
                .containsExactly(id(tokenizer, "▁h"), id(tokenizer, "<|user|>"), id(tokenizer, "▁h"));
    }

    @Test
    void decodingHidesControlTokensAndDropsTheFirstLeadingSpace() {
        int[] ids = tokenizer.encode("he he", EncodeOptions.PROMPT);
        assertThat(ids[0]).isEqualTo(1);
        assertThat(tokenizer.decode(ids)).isEqualTo(" he he"); // after BOS the space stays, as in llama.cpp
        int[] withoutBos = tokenizer.encode("he he", EncodeOptions.TEXT);
        assertThat(tokenizer.decode(withoutBos)).isEqualTo("he he");
        assertThat(tokenizer.decode(withoutBos, new DecodeOptions(false, true))).isEqualTo(" he he");
        assertThat(tokenizer.decode(new int[] {1, 2}, new DecodeOptions(true, false))).isEqualTo("<s></s>");
    }

    @Test
    void tokenBytesSpellSpacesAndBytes() {
        assertThat(tokenizer.tokenBytes(id(tokenizer, "▁he"))).containsExactly(' ', 'h', 'e');
        assertThat(tokenizer.tokenBytes(id(tokenizer, "<0xF0>"))).containsExactly((byte) 0xF0);
        assertThat(tokenizer.tokenBytes(1)).containsExactly('<', 's', '>');
    }

    @Test
    void decodeInvertsEncodeOnArbitraryText() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        String[] pieces = {"h", "e", "l", "o", " ", "  ", "\n", "\t", "é", "e\u0301", "中文", "😀", "🦙", "ß", "<s>", "1", "!"};
        for (int round = 0; round < 300; round++) {
            StringBuilder text = new StringBuilder();
            for (int i = random.nextInt(12); i > 0; i--) {
                text.append(pieces[random.nextInt(pieces.length)]);
            }
            String s = text.toString();
            assertThat(tokenizer.decode(tokenizer.encode(s, EncodeOptions.TEXT))).as("seed %d: %s", seed, s).isEqualTo(s);
        }
    }
}
