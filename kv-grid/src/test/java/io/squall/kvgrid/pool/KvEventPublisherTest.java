package io.squall.kvgrid.pool;

import static org.assertj.core.api.Assertions.assertThat;

import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.KvEvent;
import io.squall.kvgrid.KvEvent.StoredBlock;
import io.squall.kvgrid.LocalBlockHash;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.WorkerId;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class KvEventPublisherTest {

    @Test
    void flushPublishesOneBatchNumberedContinuouslyFromOne() {
        List<List<KvEvent>> batches = new ArrayList<>();
        KvEventPublisher publisher = new KvEventPublisher(new WorkerId(7), batches::add);
        StoredBlock block = new StoredBlock(new BlockHash(1), new LocalBlockHash(11));

        publisher.stored(null, List.of(block), Tier.G1);
        publisher.removed(List.of(new BlockHash(1)), Tier.G1);
        assertThat(publisher.flush()).isEqualTo(2);
        assertThat(publisher.flush()).isZero();
        publisher.removed(List.of(), Tier.G2);
        publisher.cleared();
        assertThat(publisher.flush()).isEqualTo(1);

        assertThat(batches).hasSize(2);
        assertThat(batches.get(0)).containsExactly(
                new KvEvent.Stored(new WorkerId(7), 1, null, List.of(block), Tier.G1),
                new KvEvent.Removed(new WorkerId(7), 2, List.of(new BlockHash(1)), Tier.G1));
        assertThat(batches.get(1)).containsExactly(new KvEvent.Cleared(new WorkerId(7), 3));
        assertThat(publisher.lastEventId()).isEqualTo(3);
    }
}
