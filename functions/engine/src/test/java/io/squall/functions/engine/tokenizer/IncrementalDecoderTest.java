package io.squall.functions.engine.tokenizer;

import io.squall.functions.engine.tokenizer.TestVocabularies.Entry;
import org.junit.jupiter.api.Test;

import static io.squall.functions.engine.tokenizer.TestVocabularies.id;
import static io.squall.functions.engine.tokenizer.TestVocabularies.sentencePiece;
import static org.assertj.core.api.Assertions.assertThat;

class IncrementalDecoderTest {

    private final Tokenizer tokenizer = Tokenizers.create(sentencePiece(
            Entry.normal("▁", -10), Entry.normal("▁Hi", -1), Entry.normal("▁there", -2), Entry.normal("!", -3)));

    private int b(int value) {
        return id(tokenizer, String.format("<0x%02X>", value));
    }

    @Test
    void holdsBackAnEmojiSplitAcrossByteTokensUntilItIsComplete() {
        IncrementalDecoder decoder = tokenizer.newIncrementalDecoder(DecodeOptions.DEFAULT);
        assertThat(decoder.accept(id(tokenizer, "▁Hi"))).isEqualTo("Hi");
        assertThat(decoder.accept(b(0xF0))).isEmpty();
        assertThat(decoder.accept(b(0x9F))).isEmpty();
        assertThat(decoder.accept(b(0x98))).isEmpty();
        assertThat(decoder.hasPending()).isTrue();
        assertThat(decoder.accept(b(0x80))).isEqualTo("😀");
        assertThat(decoder.accept(id(tokenizer, "▁there"))).isEqualTo(" there");
        assertThat(decoder.finish()).isEmpty();
    }

    @Test
    void replacesBytesAsSoonAsTheyAreDefinitelyInvalid() {
        IncrementalDecoder decoder = tokenizer.newIncrementalDecoder(DecodeOptions.DEFAULT);
        assertThat(decoder.accept(b(0xFF))).isEqualTo("\uFFFD");
        assertThat(decoder.accept(b(0xE2))).isEmpty();
        assertThat(decoder.accept(id(tokenizer, "!"))).isEqualTo("\uFFFD!");
        assertThat(decoder.accept(b(0xED))).isEmpty();
        assertThat(decoder.accept(b(0xA0))).as("ED A0 starts a surrogate: invalid whatever follows")
                .isNotEmpty().matches("\uFFFD+");
        assertThat(decoder.accept(b(0xE2))).isEmpty();
        assertThat(decoder.accept(b(0x82))).isEmpty();
        assertThat(decoder.finish()).as("an unfinished character at the end").isEqualTo("\uFFFD");
    }

    @Test
    void appliesTheLeadingSpaceRuleToTheFirstTokenOnly() {
        int hi = id(tokenizer, "▁Hi");
        int there = id(tokenizer, "▁there");
        assertThat(tokenizer.newIncrementalDecoder(DecodeOptions.DEFAULT).acceptAll(hi, there)).isEqualTo("Hi there");
        assertThat(tokenizer.newIncrementalDecoder(new DecodeOptions(false, true)).acceptAll(hi, there))
                .isEqualTo(" Hi there");
        assertThat(tokenizer.newIncrementalDecoder(DecodeOptions.DEFAULT).acceptAll(1, hi)).as("after BOS")
                .isEqualTo(" Hi");
        assertThat(tokenizer.newIncrementalDecoder(new DecodeOptions(true, false)).acceptAll(1, hi, 2))
                .isEqualTo("<s> Hi</s>");
    }

    @Test
    void streamsTheSameTextAsDecodingTheWholeSequence() {
        int[] ids = tokenizer.encode("Hi there 🦙!中 é", EncodeOptions.TEXT);
        IncrementalDecoder decoder = tokenizer.newIncrementalDecoder(DecodeOptions.DEFAULT);
        StringBuilder streamed = new StringBuilder();
        for (int id : ids) {
            String piece = decoder.accept(id);
            assertThat(piece.chars().noneMatch(c -> c == 0xFFFD)).isTrue();
            streamed.append(piece);
        }
        streamed.append(decoder.finish());
        assertThat(streamed.toString()).isEqualTo(tokenizer.decode(ids)).isEqualTo("Hi there 🦙!中 é");
    }
}
