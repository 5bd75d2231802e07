package io.squall.kvgrid.metrics.prometheus;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.client.CollectorRegistry;
import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.KvEvent.StoredBlock;
import io.squall.kvgrid.LocalBlockHash;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.WorkerId;
import io.squall.kvgrid.pool.Allocation;
import io.squall.kvgrid.pool.BlockPool;
import io.squall.kvgrid.pool.BlockPoolConfig;
import io.squall.kvgrid.pool.EvictionPolicy;
import io.squall.kvgrid.pool.EvictionSink;
import io.squall.kvgrid.pool.KvBlock;
import io.squall.kvgrid.pool.KvElementType;
import io.squall.kvgrid.pool.KvEventPublisher;
import io.squall.kvgrid.pool.KvLayout;
import java.util.List;
import org.junit.jupiter.api.Test;

class PrometheusKvStatsTest {

    private final CollectorRegistry registry = new CollectorRegistry();

    private double sample(String name, String... labels) {
        String[] names = labels.length == 0 ? new String[0] : new String[] {"tier"};
        Double value = registry.getSampleValue(name, names, labels);
        return value == null ? 0 : value;
    }

    @Test
    void aPoolReportsAllocationsEvictionsBlocksAndPrefixHitRate() {
        KvLayout layout = new KvLayout(1, 1, 4, 16, KvElementType.F32);
        try (BlockPool pool = new BlockPool(new BlockPoolConfig(layout, 2), EvictionPolicy.lru(),
                new KvEventPublisher(new WorkerId(1), events -> { }), EvictionSink.DISCARD,
                new PrometheusKvStats(registry))) {
            List<KvBlock> blocks = ((Allocation.Allocated) pool.allocate(2)).blocks();
            pool.commit(blocks.get(0), null, new StoredBlock(new BlockHash(1), new LocalBlockHash(1)));
            pool.free(blocks);
            pool.free(pool.findCachedPrefix(new BlockHash[] {new BlockHash(1), new BlockHash(2)}));
            pool.allocate(2);

            assertThat(sample("squall_kv_block_allocations_total")).isEqualTo(4);
            assertThat(sample("squall_kv_block_evictions_total", "G1")).isEqualTo(1);
            assertThat(sample("squall_kv_blocks", "G1")).isEqualTo(2);
            assertThat(sample("squall_kv_prefix_lookup_tokens_total")).isEqualTo(32);
            assertThat(sample("squall_kv_prefix_matched_tokens_total", "G1")).isEqualTo(16);
        }
    }

    @Test
    void tierPairsAreSeparateSeries() {
        PrometheusKvStats stats = new PrometheusKvStats(registry);
        stats.offloaded(Tier.G1, Tier.G3, 2);
        stats.onboarded(Tier.G3, Tier.G1, 1);

        String[] pair = {"from", "to"};
        assertThat(registry.getSampleValue("squall_kv_block_offloads_total", pair, new String[] {"G1", "G3"}))
                .isEqualTo(2);
        assertThat(registry.getSampleValue("squall_kv_block_onboards_total", pair, new String[] {"G3", "G1"}))
                .isEqualTo(1);
        assertThat(registry.getSampleValue("squall_kv_block_offloads_total", pair, new String[] {"G1", "G2"}))
                .isNull();
    }
}
