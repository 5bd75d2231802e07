package io.squall.kvgrid.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.KvEvent;
import io.squall.kvgrid.KvEvent.StoredBlock;
import io.squall.kvgrid.LocalBlockHash;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.WorkerId;
import io.squall.kvgrid.metrics.KvStats;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class BlockPoolTest {

    static final KvLayout LAYOUT = new KvLayout(2, 2, 4, 4, KvElementType.F32);

    private final List<KvEvent> events = new ArrayList<>();
    private final KvEventPublisher publisher = new KvEventPublisher(new WorkerId(1), events::addAll);
    private final List<EvictedBlock> evicted = new ArrayList<>();
    private final List<BlockPool> pools = new ArrayList<>();

    @AfterEach
    void closePools() {
        pools.forEach(BlockPool::close);
    }

    private BlockPool pool(int blocks, EvictionPolicy policy) {
        BlockPool pool = new BlockPool(new BlockPoolConfig(LAYOUT, blocks), policy, publisher,
                (block, page) -> evicted.add(block), KvStats.NONE);
        pools.add(pool);
        return pool;
    }

    static StoredBlock stored(long hash) {
        return new StoredBlock(new BlockHash(hash), new LocalBlockHash(hash * 31));
    }

    static List<KvBlock> allocate(BlockPool pool, int n) {
        return ((Allocation.Allocated) pool.allocate(n)).blocks();
    }

    /** Allocates one block per hash, commits the chain, frees it; returns the blocks' ids. */
    static List<Integer> cacheChain(BlockPool pool, long... hashes) {
        List<KvBlock> blocks = allocate(pool, hashes.length);
        BlockHash parent = null;
        for (int i = 0; i < hashes.length; i++) {
            assertThat(pool.commit(blocks.get(i), parent, stored(hashes[i]))).isTrue();
            parent = new BlockHash(hashes[i]);
        }
        pool.free(blocks);
        return blocks.stream().map(KvBlock::id).toList();
    }

    @Test
    void allocateAndFreeTrackReferenceCounts() {
        BlockPool pool = pool(4, EvictionPolicy.lru());
        List<KvBlock> blocks = allocate(pool, 3);

        assertThat(blocks).extracting(KvBlock::refCount).containsOnly(1);
        assertThat(blocks).extracting(KvBlock::id).doesNotHaveDuplicates();
        assertThat(pool.freeBlocks()).isEqualTo(1);

        pool.free(blocks);
        assertThat(blocks).extracting(KvBlock::refCount).containsOnly(0);
        assertThat(pool.freeBlocks()).isEqualTo(4);
        assertThatThrownBy(() -> pool.free(blocks)).hasMessage("block freed more often than allocated");
    }

    @Test
    void runningOutIsAValueAndChangesNothing() {
        BlockPool pool = pool(4, EvictionPolicy.lru());
        List<KvBlock> held = allocate(pool, 3);

        assertThat(pool.allocate(2)).isEqualTo(new Allocation.NoCapacity(1, 2));
        assertThat(pool.freeBlocks()).isEqualTo(1);
        pool.free(held);
        assertThat(pool.allocate(4)).isInstanceOf(Allocation.Allocated.class);
    }

    @Test
    void prefixHitRevivesCachedBlocksInPlaceAndSharesThem() {
        BlockPool pool = pool(8, EvictionPolicy.lru());
        List<Integer> ids = cacheChain(pool, 10, 11, 12);
        cacheChain(pool, 20, 21);
        assertThat(pool.cachedBlocks()).isEqualTo(5);

        List<KvBlock> hit = pool.findCachedPrefix(new BlockHash[] {
            new BlockHash(10), new BlockHash(11), new BlockHash(99), new BlockHash(12)});
        assertThat(hit).extracting(KvBlock::id).containsExactly(ids.get(0), ids.get(1));
        assertThat(hit).extracting(KvBlock::refCount).containsOnly(1);
        assertThat(pool.cachedBlocks()).isEqualTo(3);

        List<KvBlock> shared = pool.findCachedPrefix(new BlockHash[] {new BlockHash(10)});
        assertThat(shared.getFirst()).isSameAs(hit.getFirst());
        assertThat(shared.getFirst().refCount()).isEqualTo(2);
        assertThat(shared.getFirst().hits()).isEqualTo(2);
        pool.free(shared);
        pool.free(hit);
        assertThat(pool.freeBlocks()).isEqualTo(8);
        // Unlinking from the middle kept the list intact: all five are still evictable, in order.
        assertThat(allocate(pool, 8)).hasSize(8);
        assertThat(evicted).hasSize(5);
    }

    @Test
    void commitSetsTheHashOnceAndKeepsTheFirstHolderOfADuplicate() {
        BlockPool pool = pool(4, EvictionPolicy.lru());
        List<KvBlock> blocks = allocate(pool, 2);

        assertThat(pool.commit(blocks.get(0), null, stored(5))).isTrue();
        assertThatThrownBy(() -> pool.commit(blocks.get(0), null, stored(6))).hasMessage("block hash is set once");
        assertThat(pool.commit(blocks.get(1), null, stored(5))).isFalse();
        assertThat(blocks.get(1).hash()).isNull();
        pool.free(blocks);
        assertThat(pool.cachedBlocks()).isEqualTo(1);
    }

    @Test
    void evictionHandsTheIntactPageToTheSinkOldestReleasedFirst() {
        List<Long> firstFloats = new ArrayList<>();
        BlockPool pool = new BlockPool(new BlockPoolConfig(LAYOUT, 2), EvictionPolicy.lru(), publisher,
                (block, page) -> firstFloats.add(block.block().hash().value() * 1000
                        + (long) page.get(ValueLayout.JAVA_FLOAT, 0)), KvStats.NONE);
        pools.add(pool);
        for (long hash : new long[] {1, 2}) {
            KvBlock block = allocate(pool, 1).getFirst();
            pool.page(block).set(ValueLayout.JAVA_FLOAT, 0, hash + 0.0f);
            pool.commit(block, null, stored(hash));
            pool.free(List.of(block));
        }

        allocate(pool, 1);
        assertThat(firstFloats).containsExactly(1001L);
    }

    @Test
    void committedBlocksAreLentForEagerCopiesThatAnEvictionCancelsOrWaitsFor() {
        List<CommittedBlock> lent = new ArrayList<>();
        List<Integer> releasedHits = new ArrayList<>();
        EvictionSink eager = new EvictionSink() {
            @Override
            public void evicted(EvictedBlock block, java.lang.foreign.MemorySegment page) {
                evicted.add(block);
            }

            @Override
            public boolean copiesEagerly() {
                return true;
            }

            @Override
            public void committed(CommittedBlock block) {
                lent.add(block);
            }

            @Override
            public void released(CommittedBlock block, int hits) {
                releasedHits.add(hits);
            }
        };
        BlockPool pool = new BlockPool(new BlockPoolConfig(LAYOUT, 2), EvictionPolicy.lru(), publisher, eager, KvStats.NONE);
        pools.add(pool);
        List<KvBlock> blocks = allocate(pool, 2);
        pool.commit(blocks.get(0), null, stored(1));
        pool.commit(blocks.get(1), new BlockHash(1), stored(2));
        pool.free(List.of(blocks.get(0))); // block 1 is released first: next in LRU order
        pool.free(List.of(blocks.get(1)));
        assertThat(lent).extracting(CommittedBlock::hash).containsExactly(new BlockHash(1), new BlockHash(2));
        assertThat(releasedHits).containsExactly(0, 0);

        assertThat(lent.get(1).tryBegin()).isTrue(); // block 2's copy runs...
        lent.get(1).end(true);                       // ...and finishes: it is safe now
        assertThat(lent.get(1).tryBegin()).as("a block is copied once").isFalse();

        allocate(pool, 1);
        assertThat(evicted).extracting(block -> block.block().hash()).as("the safe block goes first, though released "
                + "after block 1").containsExactly(new BlockHash(2));
        allocate(pool, 1);
        assertThat(lent.getFirst().tryBegin()).as("block 1 was evicted before its copy started").isFalse();
    }

    @Test
    void eventsArePublishedInOrderWithIdsFromOne() {
        BlockPool pool = pool(2, EvictionPolicy.lru());
        cacheChain(pool, 1, 2);
        allocate(pool, 2);
        publisher.flush();

        WorkerId w = new WorkerId(1);
        assertThat(events).containsExactly(
                new KvEvent.Stored(w, 1, null, List.of(stored(1)), Tier.G1),
                new KvEvent.Stored(w, 2, new BlockHash(1), List.of(stored(2)), Tier.G1),
                new KvEvent.Removed(w, 3, List.of(new BlockHash(2), new BlockHash(1)), Tier.G1));
    }

    @Test
    void resetClearsCachedBlocksOnlyWhenNothingIsInUse() {
        BlockPool pool = pool(4, EvictionPolicy.lru());
        cacheChain(pool, 1, 2);
        List<KvBlock> held = allocate(pool, 1);

        assertThat(pool.reset()).isFalse();
        pool.free(held);
        assertThat(pool.reset()).isTrue();
        assertThat(pool.cachedBlocks()).isZero();
        assertThat(pool.findCachedPrefix(new BlockHash[] {new BlockHash(1)})).isEmpty();
        publisher.flush();
        assertThat(events.getLast()).isInstanceOf(KvEvent.Cleared.class);
    }

    @Test
    void tinyLfuKeepsAHotPrefixThroughAScanThatLruLetsThrough() {
        BlockPool lru = pool(8, EvictionPolicy.lru());
        BlockPool tinyLfu = pool(8, EvictionPolicy.tinyLfu(8));
        for (BlockPool pool : List.of(lru, tinyLfu)) {
            cacheChain(pool, 1, 2);
            for (int i = 0; i < 5; i++) {
                pool.free(pool.findCachedPrefix(new BlockHash[] {new BlockHash(1), new BlockHash(2)}));
            }
            for (long scan = 100; scan < 130; scan++) {
                cacheChain(pool, scan);
            }
        }

        BlockHash[] hot = {new BlockHash(1), new BlockHash(2)};
        assertThat(lru.findCachedPrefix(hot)).isEmpty();
        assertThat(tinyLfu.findCachedPrefix(hot)).hasSize(2);
    }

    @Test
    void offsetsAddressPagesThroughTheBlockTable() {
        BlockPool pool = pool(3, EvictionPolicy.lru());
        KvBlock block = allocate(pool, 3).get(2);
        long offset = pool.offset(block.id(), 1, KvPart.V, 3);
        pool.memory().set(ValueLayout.JAVA_FLOAT, offset, 42f);

        assertThat(pool.page(block).get(ValueLayout.JAVA_FLOAT, LAYOUT.offsetInBlock(1, KvPart.V, 3))).isEqualTo(42f);
        assertThat(offset).isEqualTo(2 * LAYOUT.blockBytes() + LAYOUT.offsetInBlock(1, KvPart.V, 3));
    }
}
