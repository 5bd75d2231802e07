package io.squall.kvgrid.offload;

import static org.assertj.core.api.Assertions.assertThat;

import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.KvEvent;
import io.squall.kvgrid.KvEvent.StoredBlock;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.metrics.KvStats;
import io.squall.kvgrid.pool.BlockPool;
import io.squall.kvgrid.pool.KvBlock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Blocks go down as soon as they are committed, evictions take blocks the tiers already hold first, a block
 * evicted before its copy is staged (and found there by an onboard), and a drop happens only after the
 * pool's thread waited for a tier that cannot keep up — counted.
 */
class EagerOffloadTest extends OffloadFixture {

    /** Counts what the manager reports. */
    private static final class Counts implements KvStats {
        final AtomicLong offloaded = new AtomicLong();
        final AtomicLong dropped = new AtomicLong();
        final AtomicLong stalls = new AtomicLong();
        final AtomicLong failed = new AtomicLong();

        @Override
        public void offloaded(Tier from, Tier to, int blocks) {
            offloaded.addAndGet(blocks);
        }

        @Override
        public void offloadDropped(int blocks) {
            dropped.addAndGet(blocks);
        }

        @Override
        public void offloadStalled(long nanos) {
            stalls.incrementAndGet();
        }

        @Override
        public void offloadFailed(Tier to, int blocks) {
            failed.addAndGet(blocks);
        }
    }

    /**
     * A slow tier: host memory presented as G3 whose writes wait, after saying they started, until the test
     * opens the gate.
     */
    private static final class GatedStore extends RetieredStore {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch gate = new CountDownLatch(1);

        GatedStore() {
            super(new HostBlockStore(64 * BLOCK_BYTES, BLOCK_BYTES), Tier.G3);
        }

        @Override
        public List<BlockHash> put(BlockHash hash, MemorySegment page) {
            entered.countDown();
            try {
                if (!gate.await(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the test never opened the gate");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            return super.put(hash, page);
        }

        @Override
        public void close() {
            gate.countDown();
            inner.close();
        }
    }

    /** A G3-only manager over a {@link GatedStore}, a pool of {@code blocks} pages, all allocated with random bytes. */
    private record SlowTier(GatedStore store, OffloadManager manager, BlockPool pool, List<KvBlock> blocks) {
        /** Commits {@code block} and waits until its copy has blocked the write lane in the store. */
        void blockTheLane(int block, StoredBlock stored) throws InterruptedException {
            pool.commit(blocks.get(block), null, stored);
            assertThat(store.entered.await(30, TimeUnit.SECONDS)).isTrue();
        }

        void openTheGate() throws Exception {
            store.gate.countDown();
            manager.drained().get(30, TimeUnit.SECONDS);
        }
    }

    private SlowTier slowTier(int stagingBuffers, KvStats stats, int blocks) {
        GatedStore store = closeLater(new GatedStore());
        OffloadManager manager = manager(new OffloadConfig(List.of(store), new OffloadPolicy(false, 0, false),
                stagingBuffers, 16), stats);
        BlockPool pool = pool(blocks, manager);
        List<KvBlock> allocated = allocate(pool, blocks);
        allocated.forEach(block -> pool.page(block).copyFrom(Pages.random(random, BLOCK_BYTES)));
        return new SlowTier(store, manager, pool, allocated);
    }

    /** A disk that filled or went away: every write throws, as {@link DiskBlockStore} does on an I/O error. */
    private static final class FailingStore extends RetieredStore {
        FailingStore() {
            super(new HostBlockStore(16 * BLOCK_BYTES, BLOCK_BYTES), Tier.G3);
        }

        @Override
        public List<BlockHash> put(BlockHash hash, MemorySegment page) {
            throw new UncheckedIOException("cannot write block file", new IOException("No space left on device"));
        }
    }

    @Test
    void copiesATierRefusesAreCountedAndTheBlocksStayInG1() throws Exception {
        FailingStore disk = new FailingStore();
        Counts counts = new Counts();
        OffloadManager manager = manager(new OffloadConfig(List.of(disk), new OffloadPolicy(false, 0, false), 1, 16),
                counts);
        BlockPool pool = pool(4, manager);
        List<StoredBlock> prompt = chain(4);
        cache(pool, prompt, 0);
        manager.drained().get(30, TimeUnit.SECONDS);

        assertThat(counts.failed.get()).as("each refused copy counted").isEqualTo(4);
        assertThat(counts.offloaded.get()).isZero();
        assertThat(pool.cachedBlocks()).as("the blocks stay cached in G1").isEqualTo(4);
        publisher.flush();
        assertThat(hashesOf(KvEvent.Stored.class, Tier.G3)).as("no tier claims what it did not store").isEmpty();
    }

    @Test
    void committedBlocksReachG2WhileStillInG1AndTheirEvictionCopiesNothing() throws Exception {
        HostBlockStore host = closeLater(new HostBlockStore(16 * BLOCK_BYTES, BLOCK_BYTES));
        Counts counts = new Counts();
        OffloadManager manager = manager(new OffloadConfig(List.of(host), OffloadPolicy.standard(), 1, 16), counts);
        BlockPool pool = pool(4, manager);
        List<StoredBlock> prompt = chain(4);
        List<Long> crcs = cache(pool, prompt, 0);
        manager.drained().get(30, TimeUnit.SECONDS);

        assertThat(pool.cachedBlocks()).isEqualTo(4);
        assertThat(host.blockCount()).isEqualTo(4);
        publisher.flush();
        assertThat(hashesOf(KvEvent.Removed.class, Tier.G1)).isEmpty();
        assertThat(hashesOf(KvEvent.Stored.class, Tier.G2)).containsExactlyInAnyOrderElementsOf(
                prompt.stream().map(StoredBlock::hash).toList());

        List<KvBlock> pages = allocate(pool, 4);
        manager.drained().get(30, TimeUnit.SECONDS);
        assertThat(counts.offloaded.get()).as("one copy per block, made before the eviction").isEqualTo(4);
        assertThat(counts.dropped.get()).isZero();
        assertThat(counts.stalls.get()).isZero();

        OnboardTransfer transfer = onboard(manager, pool, prompt, 0, pages);
        assertThat(transfer.isStreamed()).isTrue();
        assertThat(transfer.streamedBlocks()).isEqualTo(4);
        for (int layer = 0; layer < LAYOUT.layers(); layer++) {
            transfer.awaitLayer(layer);
        }
        assertThat(transfer.done().get()).isEqualTo(4);
        for (int i = 0; i < pages.size(); i++) {
            assertThat(Pages.crc(pool.page(pages.get(i)))).as("seed %d block %d", seed, i).isEqualTo(crcs.get(i));
        }
    }

    @Test
    void evictionTakesABlockTheTiersHoldBeforeOlderOnesWhoseCopyIsStillQueued() throws Exception {
        SlowTier slow = slowTier(4, KvStats.NONE, 3);
        List<StoredBlock> chain = chain(3);
        slow.blockTheLane(2, chain.get(2)); // block 3 is copied; its write waits
        slow.pool().commit(slow.blocks().get(0), null, chain.get(0));
        slow.pool().commit(slow.blocks().get(1), null, chain.get(1));
        for (KvBlock block : slow.blocks()) {
            slow.pool().free(List.of(block)); // block 3 is released last, but it is the only one copied
        }

        allocate(slow.pool(), 1);
        publisher.flush();
        assertThat(hashesOf(KvEvent.Removed.class, Tier.G1)).containsExactly(new BlockHash(3));

        slow.openTheGate();
        assertThat(slow.store().contains(new BlockHash(3))).isTrue();
    }

    @Test
    void aBlockEvictedBeforeItsCopyIsStagedAndAnOnboardFindsItThere() throws Exception {
        SlowTier slow = slowTier(4, KvStats.NONE, 2);
        List<StoredBlock> chain = chain(2);
        long crc = Pages.crc(slow.pool().page(slow.blocks().get(1)));
        slow.blockTheLane(0, chain.get(0));
        slow.pool().commit(slow.blocks().get(1), chain.get(0).hash(), chain.get(1));
        slow.pool().free(List.of(slow.blocks().get(1)));

        KvBlock page = allocate(slow.pool(), 1).getFirst(); // evicts block 2, whose copy never started
        OnboardTransfer transfer = onboard(slow.manager(), slow.pool(), chain, 1, List.of(page));

        assertThat(transfer.done().get()).isEqualTo(1);
        assertThat(Pages.crc(slow.pool().page(page))).as("seed %d", seed).isEqualTo(crc);
        slow.openTheGate();
        assertThat(slow.store().contains(chain.get(1).hash())).isTrue();
    }

    @Test
    void whenTheTierCannotKeepUpThePoolWaitsAndOnlyThenDropsACountedCopy() throws Exception {
        Counts counts = new Counts();
        SlowTier slow = slowTier(1, counts, 4);
        List<StoredBlock> chain = chain(4);
        slow.blockTheLane(0, chain.get(0));
        for (int i = 1; i < 4; i++) {
            slow.pool().commit(slow.blocks().get(i), null, chain.get(i));
        }
        slow.pool().free(slow.blocks().subList(1, 4));

        allocate(slow.pool(), 3); // none is safe: the first takes the one staging buffer, the others find none

        assertThat(counts.dropped.get()).isEqualTo(2);
        assertThat(counts.stalls.get()).as("one wait for the stuck lane, not one per block").isEqualTo(1);
        slow.openTheGate();
        assertThat(slow.store().blockCount()).as("block 1 (eager) and one of the evicted blocks (staged)").isEqualTo(2);
    }
}
