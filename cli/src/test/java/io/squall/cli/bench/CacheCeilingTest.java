package io.squall.cli.bench;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

class CacheCeilingTest {

    @Test
    void countsTheFullBlocksAPromptSharesAsAPrefixWithAnyEarlierOne() {
        CacheCeiling oracle = new CacheCeiling(4);
        int[] first = IntStream.range(0, 18).toArray();
        assertThat(oracle.offer(first)).isZero();
        int[] longer = IntStream.range(0, 30).toArray();
        assertThat(oracle.offer(longer)).isEqualTo(16); // four full blocks of the first; its 2-token tail is not a block
        int[] forked = Arrays.copyOf(longer, 30);
        forked[9] = 99; // differs inside the third block
        assertThat(oracle.offer(forked)).isEqualTo(8);
        int[] sameBlocksLater = IntStream.range(100, 112).toArray();
        int[] shifted = new int[16];
        System.arraycopy(sameBlocksLater, 0, shifted, 4, 12);
        assertThat(oracle.offer(sameBlocksLater)).isZero();
        assertThat(oracle.offer(shifted)).as("equal blocks after a different prefix are not a hit").isZero();
    }

    @Test
    void neverServesAPromptsLastTokenFromCache() {
        CacheCeiling oracle = new CacheCeiling(4);
        int[] prompt = IntStream.range(0, 8).toArray();
        oracle.offer(prompt);
        assertThat(oracle.offer(prompt)).isEqualTo(4); // two full blocks, but the last token is recomputed
    }
}
