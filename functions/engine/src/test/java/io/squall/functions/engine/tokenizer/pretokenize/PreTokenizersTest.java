package io.squall.functions.engine.tokenizer.pretokenize;

import io.squall.functions.engine.tokenizer.core.IntList;
import io.squall.functions.engine.tokenizer.core.Utf8;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PreTokenizersTest {

    @Test
    void gpt2KeepsTheLastSpaceOfARunForTheNextWord() {
        assertThat(split("gpt-2", "Hello world  123 it's\t\n"))
                .containsExactly("Hello", " world", " ", " 123", " it", "'s", "\t\n");
        assertThat(split("gpt-2", "hi 😀😀! I'M")).containsExactly("hi", " 😀😀!", " I", "'", "M");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "gpt-2          | 1234567 | 1234567",
            "llama-bpe      | 1234567 | 123,456,7",
            "qwen2          | 1234567 | 1,2,3,4,5,6,7",
            "starcoder      | 1234567 | 1,2,3,4,5,6,7",
            "default        | 1234567 | 123,456,7",
            "falcon         | 1234567 | 123,456,7",
            "deepseek-v3    | 1234567 | 123,456,7",
            "deepseek-llm   | 1234567 | 1234567",
            "deepseek-coder | 1234567 | 1,2,3,4,5,6,7",
            "gpt-4o         | 1234567 | 123,456,7",
            "tekken         | 1234567 | 1,2,3,4,5,6,7"})
    void groupsDigitsPerPreTokenizer(String name, String text, String pieces) {
        assertThat(split(name, text)).containsExactly(pieces.split(","));
    }

    @Test
    void falconCutsThreeDigitsFromTheLeftOfEachRegexPiece() {
        // falcon's third regex [0-9][0-9][0-9] cuts " 1234567" (one piece of the GPT-2 pattern) at every match
        assertThat(split("falcon", "x 1234567")).containsExactly("x", " ", "123", "456", "7");
    }

    @Test
    void llama3ContractionsAreCaseInsensitiveAndLineBreaksGroup() {
        assertThat(split("llama-bpe", "I'M we'Ve")).containsExactly("I", "'M", " we", "'Ve");
        assertThat(split("llama-bpe", "a\n\n b  c!\n")).containsExactly("a", "\n\n", " b", " ", " c", "!\n");
        assertThat(split("gpt-2", "we'Ve")).containsExactly("we", "'", "Ve");
    }

    @Test
    void combiningMarksAreNotLettersAndCjkAndEmojiFollowTheirCategories() {
        assertThat(split("llama-bpe", "e\u0301x")).containsExactly("e", "\u0301x");
        assertThat(split("llama-bpe", "我想在apple工作")).containsExactly("我想在apple工作");
        assertThat(split("deepseek-coder", "中文abc")).containsExactly("中文", "abc");
        assertThat(split("qwen2", "a\u00A0b")).as("non-ASCII whitespace is \\s and [^\\r\\n\\p{L}\\p{N}]")
                .containsExactly("a", "\u00A0b");
        assertThat(split("gpt-2", "a\u00A0b")).containsExactly("a", "\u00A0", "b");
    }

    @Test
    void tekkenSplitsCamelCase() {
        assertThat(split("tekken", "HelloWorld ABCdef")).containsExactly("Hello", "World", " ABCdef");
    }

    @Test
    void collapsesCategoriesLikeLlamaCpp() {
        assertThat(RegexSplitter.collapse("[^\\s\\p{L}\\p{N}]+| ?\\p{P}"))
                .isEqualTo("[^\\s\u00D2A-Za-z\u00D10-9]+| ?[\u00D3!-#%-*,-/:-;?-@\\[-\\]_\\{\\}]");
        assertThatThrownBy(() -> new RegexSplitter("\\p{L}é")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void everyRegisteredPreTokenizerCompilesAndCoversItsInput() {
        String text = "Hello, World! I'VE 12345 中文 😀 e\u0301 \u00A0\t\n\r\n  x <sentinel:1> IMGIMGAZ";
        for (String name : PreTokenizers.names()) {
            assertThat(String.join("", split(name, text))).as(name).isEqualTo(text);
        }
    }

    @Test
    void unknownNamesAreRejected() {
        assertThatThrownBy(() -> PreTokenizers.forName("nope"))
                .hasMessageContaining("unsupported pre-tokenizer 'nope'");
    }

    @Test
    void scannersAgreeWithTheRegexesTheyReplace() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        String[] alphabet = {" ", " ", "\n", "\r", "\t", "\u00A0", "\u2028", "a", "B", "s", "S", "t", "r", "e",
                "l", "L", "'", "1", "2", "٣", ".", "!", "/", "é", "\u0301", "中", "😀", "ℕ", "_", "\u0000", "\uE000"};
        Splitter gpt2 = new Gpt2Splitter();
        Splitter gpt2Regex = new RegexSplitter(Gpt2Splitter.PATTERN);
        Splitter llama3 = new Llama3Splitter();
        Splitter llama3Regex = new RegexSplitter(Llama3Splitter.PATTERN_ADAPTED);
        for (int round = 0; round < 2000; round++) {
            StringBuilder text = new StringBuilder();
            for (int i = random.nextInt(16); i > 0; i--) {
                text.append(alphabet[random.nextInt(alphabet.length)]);
            }
            int[] cps = Utf8.codePoints(text);
            assertThat(pieces(gpt2, cps)).as("gpt-2, seed %d: '%s'", seed, text).isEqualTo(pieces(gpt2Regex, cps));
            assertThat(pieces(llama3, cps)).as("llama3, seed %d: '%s'", seed, text).isEqualTo(pieces(llama3Regex, cps));
        }
    }

    private static List<String> pieces(Splitter splitter, int[] cps) {
        IntList whole = new IntList();
        whole.add(cps.length);
        IntList out = new IntList();
        splitter.split(new SplitText(cps), whole, out);
        return strings(cps, out);
    }

    private static List<String> split(String name, String text) {
        int[] cps = Utf8.codePoints(text);
        return strings(cps, PreTokenizers.forName(name).split(cps));
    }

    private static List<String> strings(int[] cps, IntList lengths) {
        List<String> result = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < lengths.size(); i++) {
            result.add(new String(cps, start, lengths.get(i)));
            start += lengths.get(i);
        }
        assertThat(start).isEqualTo(cps.length);
        return result;
    }
}
