package io.squall.functions.engine.text;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.squall.functions.engine.text.StopStringMatcher.Step;
import java.util.List;
import org.junit.jupiter.api.Test;

class StopStringMatcherTest {

    @Test
    void passesTextThroughWhenNoStopStringCanStart() {
        StopStringMatcher matcher = new StopStringMatcher(List.of("STOP"));
        assertThat(matcher.accept("Hello, ")).isEqualTo(new Step.Continue("Hello, "));
        assertThat(matcher.accept("world")).isEqualTo(new Step.Continue("world"));
        assertThat(matcher.finish()).isEmpty();
    }

    @Test
    void noStopStringsMeansNoHoldingBack() {
        StopStringMatcher matcher = new StopStringMatcher(List.of());
        assertThat(matcher.accept("anything")).isEqualTo(new Step.Continue("anything"));
    }

    @Test
    void matchesAStopStringSpanningSeveralDeltas() {
        StopStringMatcher matcher = new StopStringMatcher(List.of("<|end|>"));
        assertThat(matcher.accept("Done.<")).isEqualTo(new Step.Continue("Done."));
        assertThat(matcher.accept("|en")).isEqualTo(new Step.Continue(""));
        assertThat(matcher.accept("d|>ignored")).isEqualTo(new Step.Stopped("", "<|end|>"));
        assertThat(matcher.finish()).isEmpty();
        assertThatThrownBy(() -> matcher.accept("more")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void releasesHeldTextOnceItCannotBeAStopString() {
        StopStringMatcher matcher = new StopStringMatcher(List.of("\n\nUser:"));
        assertThat(matcher.accept("a\n")).isEqualTo(new Step.Continue("a"));
        assertThat(matcher.accept("\nUse")).isEqualTo(new Step.Continue(""));
        assertThat(matcher.accept("d it")).isEqualTo(new Step.Continue("\n\nUsed it"));
    }

    @Test
    void keepsTheLongestPossiblePrefixWithOverlappingStops() {
        // "abab" after "ab": the whole "abab" could still be a prefix of "ababc".
        StopStringMatcher matcher = new StopStringMatcher(List.of("ababc"));
        assertThat(matcher.accept("xab")).isEqualTo(new Step.Continue("x"));
        assertThat(matcher.accept("ab")).isEqualTo(new Step.Continue(""));
        assertThat(matcher.accept("ab")).isEqualTo(new Step.Continue("ab"));
        assertThat(matcher.accept("c!")).isEqualTo(new Step.Stopped("", "ababc"));
    }

    @Test
    void earliestOfSeveralStopStringsWins() {
        StopStringMatcher matcher = new StopStringMatcher(List.of("world", "lo", "hello"));
        assertThat(matcher.accept("say hello world")).isEqualTo(new Step.Stopped("say ", "hello"));

        StopStringMatcher sameStart = new StopStringMatcher(List.of("ab", "abc"));
        assertThat(sameStart.accept("xabcd")).isEqualTo(new Step.Stopped("x", "abc"));
    }

    @Test
    void finishReturnsHeldTextWhenTheStreamEnds() {
        StopStringMatcher matcher = new StopStringMatcher(List.of("###"));
        assertThat(matcher.accept("total ##")).isEqualTo(new Step.Continue("total "));
        assertThat(matcher.finish()).isEqualTo("##");
    }

    @Test
    void rejectsEmptyStopStrings() {
        assertThatThrownBy(() -> new StopStringMatcher(List.of("ok", "")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("non-empty");
    }
}
