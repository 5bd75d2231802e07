package io.squall.functions.engine.tokenizer.bpe;

import io.squall.functions.engine.tokenizer.EncodeOptions;
import io.squall.functions.engine.tokenizer.TestVocabularies.Entry;
import io.squall.functions.engine.tokenizer.TokenType;
import io.squall.functions.engine.tokenizer.Tokenizer;
import io.squall.functions.engine.tokenizer.Tokenizers;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static io.squall.functions.engine.tokenizer.TestVocabularies.bytePair;
import static io.squall.functions.engine.tokenizer.TestVocabularies.id;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BytePairTokenizerTest {

    @Test
    void mergesLowestRankFirst() {
        Tokenizer bcFirst = Tokenizers.create(bytePair("gpt-2", List.of("b c", "a b")));
        assertThat(bcFirst.encode("abc", EncodeOptions.TEXT)).containsExactly('a', id(bcFirst, "bc"));
        Tokenizer abFirst = Tokenizers.create(bytePair("gpt-2", List.of("a b", "b c")));
        assertThat(abFirst.encode("abc", EncodeOptions.TEXT)).containsExactly(id(abFirst, "ab"), 'c');
    }

    @Test
    void spellsBytesWithTheGpt2AlphabetAndMergesWithinWords() {
        Tokenizer tokenizer = Tokenizers.create(bytePair("gpt-2", List.of("t h", "th e", "Ġ c", "a t", "Ġc at")));
        assertThat(tokenizer.encode("the cat", EncodeOptions.TEXT))
                .containsExactly(id(tokenizer, "the"), id(tokenizer, "Ġcat"));
        assertThat(tokenizer.encode("thecat", EncodeOptions.TEXT)).as("no merge across the word 'thecat' into ' cat'")
                .containsExactly(id(tokenizer, "the"), 'c', id(tokenizer, "at"));
        assertThat(tokenizer.decode(tokenizer.encode("the cat\n", EncodeOptions.TEXT))).isEqualTo("the cat\n");
        assertThat(tokenizer.tokenBytes(id(tokenizer, "Ġcat"))).containsExactly(' ', 'c', 'a', 't');
        assertThat(tokenizer.tokenBytes(0x0A)).containsExactly((byte) 0x0A);
        assertThat(tokenizer.tokenBytes(0xE2)).containsExactly((byte) 0xE2);
    }

    @Test
    void llama3StyleVocabulariesTakeWholeWordTokensWithoutMerging() {
        Entry hello = Entry.normal("hello", 0);
        assertThat(Tokenizers.create(bytePair("llama-bpe", List.of(), hello)).encode("hello", EncodeOptions.TEXT))
                .containsExactly(256);
        assertThat(Tokenizers.create(bytePair("gpt-2", List.of(), hello)).encode("hello", EncodeOptions.TEXT))
                .containsExactly('h', 'e', 'l', 'l', 'o');
    }

    @Test
    void splitsSpecialTokensOutOfText() {
        Tokenizer tokenizer = Tokenizers.create(bytePair("qwen2", List.of(),
                Entry.of("<|im_end|>", TokenType.CONTROL), Entry.of("<tool>", TokenType.USER_DEFINED)));
        int imEnd = id(tokenizer, "<|im_end|>");
        int tool = id(tokenizer, "<tool>");
        assertThat(tokenizer.encode("a<|im_end|>", EncodeOptions.PROMPT)).containsExactly('a', imEnd);
        assertThat(tokenizer.encode("a<|im_end|>", EncodeOptions.TEXT)).hasSize(11).doesNotContain(imEnd);
        assertThat(tokenizer.encode("<tool>x", EncodeOptions.TEXT)).containsExactly(tool, 'x');
        assertThat(tokenizer.isEndOfGeneration(imEnd)).isTrue();
        assertThat(tokenizer.specialTokens().eot()).isEqualTo(imEnd);
        assertThat(tokenizer.decode(new int[] {'a', imEnd})).isEqualTo("a");
    }

    @Test
    void endOfGenerationTokensLlamaCppRecognisesByTextBecomeControlTokens() {
        Tokenizer tokenizer = Tokenizers.create(bytePair("llama-bpe", List.of(),
                Entry.normal("<|eot_id|>", 0), Entry.of("<|eom_id|>", TokenType.CONTROL),
                Entry.of("<|start_header_id|>", TokenType.CONTROL)));
        int eot = id(tokenizer, "<|eot_id|>");
        int eom = id(tokenizer, "<|eom_id|>");
        assertThat(tokenizer.isControl(eot)).isTrue();
        assertThat(tokenizer.endOfGenerationIds()).containsExactly(eot, eom);
        assertThat(tokenizer.isEndOfGeneration(id(tokenizer, "<|start_header_id|>"))).isFalse();
        assertThat(tokenizer.specialTokens().eom()).isEqualTo(eom);
    }

    @Test
    void decodeInvertsEncodeWhereNoSpaceCleanUpApplies() {
        Tokenizer tokenizer = Tokenizers.create(bytePair("qwen2", List.of("Ġ t", "h e", "Ġt he")));
        long seed = System.nanoTime();
        Random random = new Random(seed);
        String[] pieces = {"the", " the", "  ", "\n", "\r\n", "\t", "'s", "'RE", "123", "4567", "é", "e\u0301", "中文",
                "😀", "\u00A0", "\u2028", "?", " ,", "<|x|>", "\uD800"};
        for (int round = 0; round < 300; round++) {
            StringBuilder text = new StringBuilder();
            for (int i = random.nextInt(12); i > 0; i--) {
                text.append(pieces[random.nextInt(pieces.length)]);
            }
            String s = text.toString();
            String expected = s.replace('\uD800', '\uFFFD'); // unpaired surrogates encode as U+FFFD
            assertThat(tokenizer.decode(tokenizer.encode(s, EncodeOptions.TEXT))).as("seed %d: %s", seed, s).isEqualTo(expected);
        }
    }

    @Test
    void gpt2VocabulariesCleanSpacesBeforePunctuationWhenDecoding() {
        Tokenizer tokenizer = Tokenizers.create(bytePair("gpt-2", List.of()));
        assertThat(tokenizer.decode(tokenizer.encode("Hi , you ! It 's ' x ' fine .", EncodeOptions.TEXT)))
                .isEqualTo("Hi, you! It's'x'fine.");
    }

    @Test
    void rejectsUnsupportedPreTokenizersClearly() {
        assertThatThrownBy(() -> Tokenizers.create(bytePair("kimi-k2", List.of())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unsupported pre-tokenizer 'kimi-k2'").hasMessageContaining("llama-bpe");
    }
}
