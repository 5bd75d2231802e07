package io.squall.kvgrid.index.flat;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LongOpenTableTest {

    @Test
    void behavesLikeAMapUnderRandomInsertsAndBackwardShiftDeletes() {
        long seed = System.nanoTime();
        System.out.println("LongOpenTableTest seed=" + seed);
        Random random = new Random(seed);
        WorkerBlocks table = new WorkerBlocks();
        Map<Long, Integer> expected = new HashMap<>();

        for (int step = 0; step < 200_000; step++) {
            // A small key range forces long probe runs, collisions on home slots, and key 0.
            long key = random.nextInt(3) == 0 ? random.nextInt(64) : random.nextLong() >>> random.nextInt(64);
            int tier = random.nextInt(4);
            if (random.nextInt(5) < 3) {
                boolean added = table.add(key, tier);
                int before = expected.getOrDefault(key, 0);
                expected.put(key, before | (1 << tier));
                assertThat(added).as("add step %d seed %d", step, seed).isEqualTo((before & (1 << tier)) == 0);
            } else {
                boolean removed = table.remove(key, tier);
                int before = expected.getOrDefault(key, 0);
                assertThat(removed).as("remove step %d seed %d", step, seed).isEqualTo((before & (1 << tier)) != 0);
                int after = before & ~(1 << tier);
                if (after == 0) {
                    expected.remove(key);
                } else {
                    expected.put(key, after);
                }
            }
        }

        assertThat(table.size()).isEqualTo(expected.size());
        Map<Long, Integer> actual = new HashMap<>();
        for (int slot = 0; slot < table.slotLimit(); slot++) {
            if (table.used(slot)) {
                actual.put(table.key(slot), table.tiers(slot));
            }
        }
        assertThat(actual).isEqualTo(expected);
        for (long key : expected.keySet()) {
            assertThat(table.find(key)).isNotNegative();
        }
    }
}
