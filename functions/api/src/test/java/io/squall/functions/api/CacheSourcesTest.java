package io.squall.functions.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class CacheSourcesTest {

    @Test
    void firstTokensTakesTheExcessOffTheTiersOnboardedLast() {
        CacheSources sources = new CacheSources(32, 48, 16, 8);

        assertThat(sources.firstTokens(200)).isEqualTo(sources);
        assertThat(sources.firstTokens(90)).isEqualTo(new CacheSources(32, 48, 10, 0));
        assertThat(sources.firstTokens(40)).isEqualTo(new CacheSources(32, 8, 0, 0));
        assertThat(sources.firstTokens(0)).isEqualTo(CacheSources.NONE);
        assertThatThrownBy(() -> sources.firstTokens(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void plusAddsTierByTierAndTotalSumsTheTiers() {
        CacheSources sum = new CacheSources(1, 2, 3, 4).plus(new CacheSources(10, 20, 30, 40));

        assertThat(sum).isEqualTo(new CacheSources(11, 22, 33, 44));
        assertThat(sum.total()).isEqualTo(110);
        assertThatThrownBy(() -> new CacheSources(0, -1, 0, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
