package io.squall.functions.engine.sampling;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class TopTokensTest {

    @Test
    void keyOrderMatchesFloatOrderThenLowerIdFirst() {
        assertThat(TopTokens.key(-1f, 0)).isLessThan(TopTokens.key(-0.5f, 0));
        assertThat(TopTokens.key(-0f, 0)).isLessThan(TopTokens.key(0f, 0));
        assertThat(TopTokens.key(1f, 7)).isLessThan(TopTokens.key(2f, 9));
        assertThat(TopTokens.key(Float.NEGATIVE_INFINITY, 0)).isLessThan(TopTokens.key(-Float.MAX_VALUE, 5));
        assertThat(TopTokens.key(3f, 4)).isGreaterThan(TopTokens.key(3f, 5));
        assertThat(TopTokens.id(TopTokens.key(3f, 123_456))).isEqualTo(123_456);
    }

    @Test
    void selectsTheSameTokensAsAFullSort() {
        long seed = 42;
        SplittableRandom random = new SplittableRandom(seed);
        float[] logits = new float[5_000];
        for (int i = 0; i < logits.length; i++) {
            // Coarse values force many ties, which must resolve to the lower id.
            logits[i] = random.nextInt(200) / 10f - 10f;
        }
        for (int k : new int[] {0, 1, 7, 40, 5_000, 6_000}) {
            long[] keys = new long[k];
            int count = TopTokens.select(logits, k, keys);
            int[] selected = Arrays.stream(keys, 0, count).mapToInt(TopTokens::id).toArray();
            int[] expected = IntStream.range(0, logits.length).boxed()
                    .sorted(Comparator.<Integer>comparingDouble(i -> -logits[i]).thenComparingInt(i -> i))
                    .limit(k).mapToInt(Integer::intValue).toArray();
            assertThat(selected).as("k=%d seed=%d", k, seed).containsExactly(expected);
        }
    }
}
