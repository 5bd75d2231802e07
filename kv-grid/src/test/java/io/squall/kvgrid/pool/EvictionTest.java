package io.squall.kvgrid.pool;

import io.squall.kvgrid.BlockHash;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EvictionTest {

    private static final BlockHash OFTEN = new BlockHash(1);
    private static final BlockHash ONCE = new BlockHash(2);

    @Test
    void lruAdmitsEveryReleasedBlockAndTinyLfuOnlyTheMoreFrequentOne() {
        for (Eviction eviction : Eviction.values()) {
            EvictionPolicy policy = eviction.policy(64);
            for (int i = 0; i < 5; i++) {
                policy.recordAccess(OFTEN);
            }
            policy.recordAccess(ONCE);

            assertThat(policy.admit(OFTEN, ONCE)).as(eviction.toString()).isTrue();
            assertThat(policy.admit(ONCE, OFTEN)).as("%s keeps a one-off block ahead of a frequent one", eviction)
                    .isEqualTo(eviction == Eviction.LRU);
        }
    }

    @Test
    void parsesTheCliNames() {
        assertThat(Eviction.parse("lru")).isEqualTo(Eviction.LRU);
        assertThat(Eviction.parse("TinyLFU")).isEqualTo(Eviction.TINYLFU);
        assertThat(Eviction.TINYLFU).hasToString("tinylfu");
        assertThatThrownBy(() -> Eviction.parse("fifo")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lru or tinylfu");
    }
}
