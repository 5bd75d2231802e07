package io.squall.functions.engine.tokenizer.core;

import io.squall.functions.engine.tokenizer.TestVocabularies.Entry;
import io.squall.functions.engine.tokenizer.TokenType;
import io.squall.functions.engine.tokenizer.Vocabulary;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static io.squall.functions.engine.tokenizer.TestVocabularies.sentencePiece;
import static org.assertj.core.api.Assertions.assertThat;

class SpecialTokenSplitterTest {

    private final Vocabulary vocabulary = sentencePiece(
            Entry.of("<a>", TokenType.USER_DEFINED), Entry.of("<a><b>", TokenType.CONTROL),
            Entry.of("b><c", TokenType.USER_DEFINED), Entry.of("<|x|>", TokenType.CONTROL));
    private final TokenTable table = new TokenTable(vocabulary, text -> text.getBytes(StandardCharsets.UTF_8));
    private final SpecialTokenSplitter splitter = new SpecialTokenSplitter(table);

    @Test
    void triesLongerTokensFirstAcrossTheWholeText() {
        // "<a><b>" (6 bytes) splits first; then "b><c" and "<a>" split what is left
        assertThat(render("x<a><b>y<a>b><cz", true)).containsExactly("x", "#<a><b>", "y", "#<a>", "#b><c", "z");
    }

    @Test
    void controlTokensSplitOnlyWhenParsingSpecial() {
        assertThat(render("<a><b><|x|>", false)).containsExactly("#<a>", "<b><|x|>");
        assertThat(render("<a><b><|x|>", true)).containsExactly("#<a><b>", "#<|x|>");
        assertThat(render("", true)).isEmpty();
    }

    private List<String> render(String text, boolean parseSpecial) {
        return splitter.split(text, parseSpecial).stream()
                .map(f -> f.isToken() ? "#" + table.text(f.token()) : text.substring(f.start(), f.end()))
                .toList();
    }
}
