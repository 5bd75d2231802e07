package io.squall.kvgrid.index.flat;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BlockLogTest {

    private static final int WORKER = 3;
    private static final int OTHER = 5;
    private static final int G1 = 0;
    private static final int G2 = 1;

    private final NodeTable nodes = new NodeTable(16);
    private final BlockLog log = new BlockLog();
    private final SlotMarks marks = new SlotMarks();

    private void hold(long hash, int tier, int worker) {
        nodes.set(nodes.node(hash, 0, false, 0), tier, worker);
    }

    private void drop(long hash, int tier, int worker) {
        nodes.clear(nodes.find(hash), tier, worker);
    }

    private List<Long> entries() {
        List<Long> entries = new ArrayList<>();
        for (int i = 0; i < log.size(); i++) {
            entries.add(log.hash(i));
        }
        return entries;
    }

    @Test
    void compactionKeepsEachHeldBlockOnceInLogOrder() {
        for (long hash = 1; hash <= 6; hash++) {
            hold(hash, G1, WORKER);
            log.append(hash);
        }
        hold(0, G2, WORKER); // key 0 lives in the table's extra row
        log.append(0);
        drop(2, G1, WORKER); // stale entry
        drop(4, G1, WORKER);
        hold(4, G2, WORKER); // removed and stored again, in another tier: a duplicate
        log.append(4);
        hold(5, G1, OTHER);
        drop(5, G1, WORKER); // someone else still holds it: the node stays, the entry is stale
        drop(6, G1, WORKER);
        hold(6, G1, WORKER); // removed and stored again in the same tier
        log.append(6);

        int kept = log.compact(nodes, WORKER, marks);

        assertThat(kept).isEqualTo(5);
        assertThat(entries()).containsExactly(1L, 3L, 4L, 6L, 0L);
        assertThat(log.compact(nodes, WORKER, marks)).as("the marks were left clear").isEqualTo(5);
        assertThat(entries()).containsExactly(1L, 3L, 4L, 6L, 0L);
    }

    @Test
    void compactionIsDueOnlyPastGrowthTimesLivePlusSlack() {
        int live = 100;
        for (int i = 0; i < BlockLog.GROWTH * live + BlockLog.SLACK; i++) {
            log.append(i + 1);
        }
        assertThat(log.needsCompaction(live)).isFalse();
        log.append(-1);
        assertThat(log.needsCompaction(live)).isTrue();
        assertThat(log.needsCompaction(live + 1)).isFalse();
    }

    @Test
    void dropAllClearsOnlyThisWorkersBitsAndDropsNodesNobodyHolds() {
        for (long hash = 1; hash <= 4; hash++) {
            hold(hash, G1, WORKER);
            hold(hash, G2, WORKER);
            log.append(hash);
        }
        log.append(2); // a duplicate clears nothing twice
        log.append(99); // a stale entry whose node is gone
        hold(3, G2, OTHER);

        log.dropAll(nodes, WORKER);

        assertThat(log.size()).isZero();
        assertThat(nodes.size()).isEqualTo(1);
        int three = nodes.find(3);
        assertThat(nodes.tiersOf(three, WORKER)).isZero();
        assertThat(nodes.tiersOf(three, OTHER)).isEqualTo(1 << G2);
    }
}
