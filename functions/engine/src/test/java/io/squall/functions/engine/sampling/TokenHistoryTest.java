package io.squall.functions.engine.sampling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TokenHistoryTest {

    @Test
    void growsAndKeepsOrder() {
        TokenHistory history = TokenHistory.of(1, 2, 3);
        for (int i = 0; i < 100; i++) {
            history.add(i);
        }
        assertThat(history.size()).isEqualTo(103);
        assertThat(history.get(2)).isEqualTo(3);
        assertThat(history.get(102)).isEqualTo(99);
        assertThat(history.toArray()).startsWith(1, 2, 3, 0, 1);
    }

    @Test
    void rejectsIndicesOutsideTheHistory() {
        assertThatThrownBy(() -> TokenHistory.of(1).get(1)).hasMessageContaining("outside history of 1 tokens");
    }
}
