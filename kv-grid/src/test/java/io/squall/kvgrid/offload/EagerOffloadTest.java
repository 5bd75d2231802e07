package io.squall.kvgrid.offload;

import static org.assertj.core.api.Assertions.assertThat;

import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.KvEvent;
import io.squall.kvgrid.KvEvent.StoredBlock;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.metrics.KvStats;
import io.squall.kvgrid.pool.BlockPool;
import io.squall.kvgrid.pool.KvBlock;
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
        final AtomicLong stalledNanos = new AtomicLong();

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
            stalledNanos.addAndGet(nanos);
        }
    }

    /**
     * A slow tier: host memory presented as G3 whose writes wait, after saying they started, until the test
     * opens the gate.
     */
    private static final class GatedStore implements BlockStore {
        final HostBlockStore inner = new HostBlockStore(64 * BLOCK_BYTES, BLOCK_BYTES);
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch gate = new CountDownLatch(1);

        @Override
        public Tier tier() {
            return Tier.G3;
        }

        @Override
        public long blockBytes() {
            return BLOCK_BYTES;
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
            return inner.put(hash, page);
        }

        @Override
        public ReadResult read(BlockHash hash, MemorySegment target) {
            return inner.read(hash, target);
        }

        @Override
        public boolean contains(BlockHash hash) {
            return inner.contains(hash);
        }

        @Override
        public boolean remove(BlockHash hash) {
            return inner.remove(hash);
        }

        @Override
        public long blockCount() {
            return inner.blockCount();
        }

        @Override
        public void close() {
            gate.countDown();
            inner.close();
        }
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
        assertThat(counts.stalledNanos.get()).isZero();

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
        GatedStore slow = closeLater(new GatedStore());
        OffloadManager manager = manager(new OffloadConfig(List.of(slow), new OffloadPolicy(false, 0, false), 4, 16),
                KvStats.NONE);
        BlockPool pool = pool(3, manager);
        List<KvBlock> blocks = allocate(pool, 3);
        List<StoredBlock> chain = chain(3);
        pool.commit(blocks.get(2), null, chain.get(2));
        assertThat(slow.entered.await(30, TimeUnit.SECONDS)).isTrue(); // block 3 is copied; its write waits
        pool.commit(blocks.get(0), null, chain.get(0));
        pool.commit(blocks.get(1), null, chain.get(1));
        pool.free(List.of(blocks.get(0)));
        pool.free(List.of(blocks.get(1)));
        pool.free(List.of(blocks.get(2))); // released last, but the only one whose copy is made

        allocate(pool, 1);
        publisher.flush();
        assertThat(hashesOf(KvEvent.Removed.class, Tier.G1)).containsExactly(new BlockHash(3));

        slow.gate.countDown();
        manager.drained().get(30, TimeUnit.SECONDS);
        assertThat(slow.contains(new BlockHash(3))).isTrue();
    }

    @Test
    void aBlockEvictedBeforeItsCopyIsStagedAndAnOnboardFindsItThere() throws Exception {
        GatedStore slow = closeLater(new GatedStore());
        OffloadManager manager = manager(new OffloadConfig(List.of(slow), new OffloadPolicy(false, 0, false), 4, 16),
                KvStats.NONE);
        BlockPool pool = pool(2, manager);
        List<StoredBlock> chain = chain(2);
        List<KvBlock> blocks = allocate(pool, 2);
        blocks.forEach(block -> pool.page(block).copyFrom(Pages.random(random, BLOCK_BYTES)));
        long crc = Pages.crc(pool.page(blocks.get(1)));
        pool.commit(blocks.get(0), null, chain.get(0));
        assertThat(slow.entered.await(30, TimeUnit.SECONDS)).isTrue(); // the lane is stuck writing block 1
        pool.commit(blocks.get(1), chain.get(0).hash(), chain.get(1));
        pool.free(List.of(blocks.get(1)));

        KvBlock page = allocate(pool, 1).getFirst(); // evicts block 2, whose copy never started
        OnboardTransfer transfer = onboard(manager, pool, chain, 1, List.of(page));

        assertThat(transfer.done().get()).isEqualTo(1);
        assertThat(Pages.crc(pool.page(page))).as("seed %d", seed).isEqualTo(crc);
        slow.gate.countDown();
        manager.drained().get(30, TimeUnit.SECONDS);
        assertThat(slow.contains(chain.get(1).hash())).isTrue();
    }

    @Test
    void whenTheTierCannotKeepUpThePoolWaitsAndOnlyThenDropsACountedCopy() throws Exception {
        GatedStore slow = closeLater(new GatedStore());
        Counts counts = new Counts();
        OffloadManager manager = manager(new OffloadConfig(List.of(slow), new OffloadPolicy(false, 0, false), 1, 16),
                counts);
        BlockPool pool = pool(3, manager);
        List<StoredBlock> chain = chain(3);
        List<KvBlock> blocks = allocate(pool, 3);
        pool.commit(blocks.get(0), null, chain.get(0));
        assertThat(slow.entered.await(30, TimeUnit.SECONDS)).isTrue();
        pool.commit(blocks.get(1), null, chain.get(1));
        pool.commit(blocks.get(2), null, chain.get(2));
        pool.free(List.of(blocks.get(1), blocks.get(2)));

        allocate(pool, 2); // both unsafe: the first takes the one staging buffer, the second finds none

        assertThat(counts.dropped.get()).isEqualTo(1);
        assertThat(counts.stalledNanos.get()).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(OffloadManager.MAX_STALL_MILLIS));
        slow.gate.countDown();
        manager.drained().get(30, TimeUnit.SECONDS);
        assertThat(slow.blockCount()).as("block 1 (eager) and one of the evicted blocks (staged)").isEqualTo(2);
    }
}
