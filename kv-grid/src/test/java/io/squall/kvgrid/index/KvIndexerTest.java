package io.squall.kvgrid.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.KvEvent;
import io.squall.kvgrid.LocalBlockHash;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.WorkerId;
import io.squall.kvgrid.index.flat.FlatRadixIndex;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class KvIndexerTest {

    private static final WorkerId A = new WorkerId(1);
    private static final BlockHash H1 = new BlockHash(11);
    private static final BlockHash H2 = new BlockHash(12);

    private static KvEvent.Stored stored(long id, BlockHash parent, BlockHash hash) {
        return new KvEvent.Stored(A, id, parent, List.of(new KvEvent.StoredBlock(hash, new LocalBlockHash(hash.value() + 100))), Tier.G1);
    }

    @Test
    void commandsSeeEveryEventOfferedBeforeThem() throws Exception {
        try (KvIndexer indexer = new KvIndexer(new FlatRadixIndex(), KvIndexer.Config.DEFAULT, gap -> {})) {
            assertThat(indexer.offer(stored(1, null, H1))).isTrue();
            assertThat(indexer.offer(stored(2, H1, H2))).isTrue();

            WorkerSnapshot snapshot = indexer.dump(A).get(5, TimeUnit.SECONDS);

            assertThat(snapshot.lastEventId()).isEqualTo(2);
            assertThat(snapshot.events()).hasSize(2);
            assertThat(indexer.findMatches(new BlockHash[] {H1, H2}).get(5, TimeUnit.SECONDS).deviceBlocks(A)).isEqualTo(2);
        }
    }

    @Test
    void gapsReachTheListenerAndAReplaceRepairsThem() throws Exception {
        List<ApplyOutcome.Gap> gaps = new CopyOnWriteArrayList<>();
        try (KvIndexer indexer = new KvIndexer(new FlatRadixIndex(), KvIndexer.Config.DEFAULT, gaps::add)) {
            indexer.offer(stored(1, null, H1));
            indexer.offer(stored(4, H1, H2));
            indexer.replace(new WorkerSnapshot(A, 9, List.of(stored(9, null, H1)))).get(5, TimeUnit.SECONDS);
            indexer.offer(stored(10, H1, H2));

            assertThat(indexer.dump(A).get(5, TimeUnit.SECONDS).lastEventId()).isEqualTo(10);
            assertThat(gaps).containsExactly(new ApplyOutcome.Gap(A, 2, 4));
            assertThat(indexer.findMatches(new BlockHash[] {H1, H2}).get(5, TimeUnit.SECONDS).deviceBlocks(A)).isEqualTo(2);
        }
    }

    @Test
    void removeWorkerIsOrderedWithEvents() throws Exception {
        try (KvIndexer indexer = new KvIndexer(new FlatRadixIndex(), KvIndexer.Config.DEFAULT, gap -> {})) {
            indexer.offer(stored(1, null, H1));
            indexer.removeWorker(A).get(5, TimeUnit.SECONDS);

            assertThat(indexer.findMatches(new BlockHash[] {H1}).get(5, TimeUnit.SECONDS).workers()).isEmpty();
        }
    }

    @Test
    void closedIndexerRefusesWork() {
        KvIndexer indexer = new KvIndexer(new FlatRadixIndex(), new KvIndexer.Config(4, 4, 1), gap -> {});
        indexer.close();
        indexer.close();

        assertThatThrownBy(() -> indexer.offer(stored(1, null, H1))).isInstanceOf(IllegalStateException.class).hasMessage("indexer is closed");
        assertThatThrownBy(() -> indexer.findMatches(new BlockHash[] {H1})).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void rejectsBadConfig() {
        assertThatThrownBy(() -> new KvIndexer.Config(0, 1, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("indexer queue capacities and batch size must be positive");
    }
}
