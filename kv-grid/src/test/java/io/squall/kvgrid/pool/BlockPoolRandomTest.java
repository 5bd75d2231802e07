package io.squall.kvgrid.pool;

import static org.assertj.core.api.Assertions.assertThat;

import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.KvEvent;
import io.squall.kvgrid.WorkerId;
import io.squall.kvgrid.metrics.KvStats;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Random allocate / commit / find / free sequences checked against a model of what G1 holds. */
class BlockPoolRandomTest {

    private static final Logger LOG = LoggerFactory.getLogger(BlockPoolRandomTest.class);

    @Test
    void eventsAndLookupsAgreeWithTheModelUnderRandomOperations() {
        long seed = System.nanoTime();
        LOG.info("BlockPoolRandomTest seed={}", seed);
        Random random = new Random(seed);
        List<KvEvent> events = new ArrayList<>();
        KvEventPublisher publisher = new KvEventPublisher(new WorkerId(3), events::addAll);
        for (EvictionPolicy policy : List.of(EvictionPolicy.lru(), EvictionPolicy.tinyLfu(16))) {
            try (BlockPool pool = new BlockPool(new BlockPoolConfig(BlockPoolTest.LAYOUT, 16), policy, publisher,
                    EvictionSink.DISCARD, KvStats.NONE)) {
                run(pool, publisher, events, random, seed);
            }
        }
    }

    private static void run(BlockPool pool, KvEventPublisher publisher, List<KvEvent> events, Random random,
                            long seed) {
        Set<BlockHash> present = new HashSet<>();
        List<List<KvBlock>> sequences = new ArrayList<>();
        for (int step = 0; step < 2_000; step++) {
            int op = random.nextInt(3);
            if (op == 0) {
                List<KvBlock> hit = pool.findCachedPrefix(randomChain(random));
                hit.forEach(b -> assertThat(present).as("seed %d", seed).contains(b.hash()));
                sequences.add(new ArrayList<>(hit));
            } else if (op == 1 && pool.allocate(random.nextInt(4)) instanceof Allocation.Allocated(var blocks)) {
                for (KvBlock block : blocks) {
                    if (random.nextBoolean()) {
                        pool.commit(block, null, BlockPoolTest.stored(random.nextInt(40)));
                    }
                }
                sequences.add(new ArrayList<>(blocks));
            } else if (!sequences.isEmpty()) {
                pool.free(sequences.remove(random.nextInt(sequences.size())));
            }
            publisher.flush();
            for (KvEvent event : events) {
                switch (event) {
                    case KvEvent.Stored s -> s.blocks().forEach(b -> assertThat(present.add(b.hash())).isTrue());
                    case KvEvent.Removed r -> r.hashes().forEach(h -> assertThat(present.remove(h)).isTrue());
                    case KvEvent.Cleared c -> present.clear();
                }
            }
            events.clear();
            int held = sequences.stream().mapToInt(List::size).sum();
            assertThat(pool.freeBlocks()).as("seed %d", seed).isGreaterThanOrEqualTo(pool.capacity() - held);
        }
        sequences.forEach(pool::free);
        assertThat(pool.freeBlocks()).as("seed %d", seed).isEqualTo(pool.capacity());
        assertThat(pool.cachedBlocks()).as("seed %d", seed).isEqualTo(present.size());
    }

    private static BlockHash[] randomChain(Random random) {
        BlockHash[] chain = new BlockHash[1 + random.nextInt(4)];
        for (int i = 0; i < chain.length; i++) {
            chain[i] = new BlockHash(random.nextInt(40));
        }
        return chain;
    }
}
