package io.squall.functions.engine.tokenizer;

import io.squall.functions.engine.gguf.GgufMetadata;
import io.squall.functions.engine.gguf.GgufValue;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GgufVocabularyTest {

    private static Map<String, GgufValue> spm() {
        Map<String, GgufValue> entries = new LinkedHashMap<>();
        entries.put("tokenizer.ggml.model", GgufValue.ofString("llama"));
        entries.put("tokenizer.ggml.tokens", GgufValue.ofStrings(new String[] {"<unk>", "<s>", "</s>", "▁a"}));
        entries.put("tokenizer.ggml.scores", GgufValue.ofFloats(new float[] {0, 0, 0, -1}));
        entries.put("tokenizer.ggml.token_type", GgufValue.ofInts(new int[] {2, 3, 3, 1}));
        return entries;
    }

    private static Map<String, GgufValue> bpe(String pre) {
        Map<String, GgufValue> entries = new LinkedHashMap<>();
        entries.put("tokenizer.ggml.model", GgufValue.ofString("gpt2"));
        entries.put("tokenizer.ggml.pre", GgufValue.ofString(pre));
        String[] tokens = new String[20];
        for (int i = 0; i < tokens.length; i++) {
            tokens[i] = String.valueOf((char) ('a' + i));
        }
        entries.put("tokenizer.ggml.tokens", GgufValue.ofStrings(tokens));
        entries.put("tokenizer.ggml.merges", GgufValue.ofStrings(new String[0]));
        return entries;
    }

    @Test
    void sentencePieceDefaultsAreLlamaCpps() {
        Vocabulary vocabulary = GgufVocabulary.read(new GgufMetadata(spm()));
        assertThat(vocabulary.model()).isEqualTo(TokenizerModel.SENTENCEPIECE);
        assertThat(vocabulary.specials().bos()).isEqualTo(1);
        assertThat(vocabulary.specials().eos()).isEqualTo(2);
        assertThat(vocabulary.specials().unknown()).isZero();
        assertThat(vocabulary.flags()).isEqualTo(new Vocabulary.Flags(true, false, true));
        assertThat(Tokenizers.fromGguf(new GgufMetadata(spm())).encode("a", EncodeOptions.PROMPT)).containsExactly(1, 3);
    }

    @Test
    void declaredIdsAndFlagsOverrideDefaultsButOutOfRangeIdsAreIgnored() {
        Map<String, GgufValue> entries = spm();
        entries.put("tokenizer.ggml.eos_token_id", GgufValue.ofUint32(3));
        entries.put("tokenizer.ggml.bos_token_id", GgufValue.ofUint32(99));
        entries.put("tokenizer.ggml.add_bos_token", GgufValue.ofBool(false));
        entries.put("tokenizer.ggml.add_space_prefix", GgufValue.ofBool(false));
        Vocabulary vocabulary = GgufVocabulary.read(new GgufMetadata(entries));
        assertThat(vocabulary.specials().eos()).isEqualTo(3);
        assertThat(vocabulary.specials().bos()).isEqualTo(1);
        assertThat(vocabulary.flags()).isEqualTo(new Vocabulary.Flags(false, false, false));
    }

    @Test
    void bytePairDefaultsFollowThePreTokenizer() {
        Vocabulary gpt2 = GgufVocabulary.read(new GgufMetadata(bpe("gpt-2")));
        assertThat(gpt2.specials().bos()).isEqualTo(11);
        assertThat(gpt2.specials().eos()).isEqualTo(11);
        assertThat(gpt2.specials().has(SpecialTokens.Role.UNKNOWN)).isFalse();
        assertThat(gpt2.flags().addBos()).isFalse();
        assertThat(GgufVocabulary.read(new GgufMetadata(bpe("llama-bpe"))).flags().addBos()).isTrue();
        assertThat(GgufVocabulary.read(new GgufMetadata(bpe("chatglm-bpe"))).specials().has(SpecialTokens.Role.BOS)).isFalse();
        Map<String, GgufValue> noPre = bpe("x");
        noPre.remove("tokenizer.ggml.pre");
        assertThat(GgufVocabulary.read(new GgufMetadata(noPre)).preTokenizer()).isEqualTo("default");
    }

    @Test
    void unsupportedOrIncompleteTokenizersFailClearly() {
        Map<String, GgufValue> bert = spm();
        bert.put("tokenizer.ggml.model", GgufValue.ofString("bert"));
        assertThatThrownBy(() -> GgufVocabulary.read(new GgufMetadata(bert)))
                .hasMessageContaining("unsupported tokenizer model 'bert'");
        Map<String, GgufValue> noMerges = bpe("gpt-2");
        noMerges.remove("tokenizer.ggml.merges");
        assertThatThrownBy(() -> GgufVocabulary.read(new GgufMetadata(noMerges))).hasMessageContaining("merges");
        assertThatThrownBy(() -> GgufVocabulary.read(new GgufMetadata(bpe("kimi-k2"))))
                .hasMessageContaining("unsupported pre-tokenizer 'kimi-k2'");
        Map<String, GgufValue> duplicate = spm();
        duplicate.put("tokenizer.ggml.tokens", GgufValue.ofStrings(new String[] {"<unk>", "<s>", "</s>", "<s>"}));
        assertThatThrownBy(() -> Tokenizers.fromGguf(new GgufMetadata(duplicate)))
                .hasMessageContaining("duplicate token in vocabulary: '<s>' has ids 1 and 3");
    }
}
