package io.squall.functions.engine.tokenizer.core;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.HexFormat;

import static org.assertj.core.api.Assertions.assertThat;

class Utf8Test {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
            "41, 0", "c3, 1", "c3a9, 0", "e2, 1", "e282, 2", "e282ac, 0", "f0, 1", "f09f, 2", "f09f98, 3",
            "f09f9880, 0", "41f09f98, 3",
            // invalid whatever follows: lone continuation, C0/C1 and F5+ leads, surrogates, overlongs, > U+10FFFF
            "80, 0", "c0, 0", "c1, 0", "f5, 0", "ff, 0", "eda0, 0", "e080, 0", "f080, 0", "f490, 0", "e2e2, 1"})
    void findsTheIncompleteCharacterAtTheEnd(String hex, int expected) {
        byte[] bytes = HexFormat.of().parseHex(hex);
        assertThat(Utf8.incompleteTail(bytes, bytes.length)).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource({"a", "é", "中", "😀"})
    void encodesLikeTheJdk(String text) {
        byte[] out = new byte[4];
        int length = Utf8.encode(text.codePointAt(0), out, 0);
        assertThat(java.util.Arrays.copyOf(out, length)).isEqualTo(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @CsvSource({"'\uD800x', 65533", "'x\uDC00', 120"})
    void replacesUnpairedSurrogates(String text, int firstCodePoint) {
        int[] cps = Utf8.codePoints(text);
        assertThat(cps).hasSize(2).contains(0xFFFD);
        assertThat(cps[0]).isEqualTo(firstCodePoint);
    }
}
