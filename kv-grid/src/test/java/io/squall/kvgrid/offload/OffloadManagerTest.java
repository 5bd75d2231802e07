package io.squall.kvgrid.offload;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.client.CollectorRegistry;
import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.KvEvent;
import io.squall.kvgrid.KvEvent.StoredBlock;
import io.squall.kvgrid.LocalBlockHash;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.metrics.KvStats;
import io.squall.kvgrid.metrics.prometheus.PrometheusKvStats;
import io.squall.kvgrid.pool.BlockPool;
import io.squall.kvgrid.pool.KvBlock;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * Blocks going down the tiers and coming back through the {@link OffloadManager}: byte-for-byte round
 * trips, which tiers get what, verification on the way up. The eager offload, backpressure and streaming
 * behaviour is in {@link EagerOffloadTest}.
 */
class OffloadManagerTest extends OffloadFixture {

    @Test
    void evictedBlocksRoundTripThroughHostAndDiskByteForByte() throws Exception {
        HostBlockStore host = closeLater(new HostBlockStore(2 * BLOCK_BYTES, BLOCK_BYTES));
        DiskBlockStore disk = closeLater(new DiskBlockStore(directory, 1 << 20, BLOCK_BYTES));
        OffloadManager manager = manager(new OffloadConfig(List.of(disk, host), OffloadPolicy.standard(), 8, 16), KvStats.NONE);
        BlockPool pool = pool(4, manager);
        List<StoredBlock> prompt = chain(4);
        List<Long> crcs = cache(pool, prompt, 2);
        manager.drained().get(30, TimeUnit.SECONDS);

        List<KvBlock> pages = allocate(pool, 4);
        manager.drained().get(30, TimeUnit.SECONDS);
        OnboardTransfer transfer = onboard(manager, pool, prompt, 0, pages);

        assertThat(transfer.done().get()).isEqualTo(4);
        assertThat(transfer.sources()).containsOnly(Tier.G2, Tier.G3).contains(Tier.G2, Tier.G3);
        for (int i = 0; i < pages.size(); i++) {
            assertThat(Pages.crc(pool.page(pages.get(i)))).as("seed %d block %d", seed, i).isEqualTo(crcs.get(i));
        }
        publisher.flush();
        List<BlockHash> all = prompt.stream().map(StoredBlock::hash).toList();
        assertThat(hashesOf(KvEvent.Stored.class, Tier.G2)).containsExactlyInAnyOrderElementsOf(all);
        assertThat(hashesOf(KvEvent.Removed.class, Tier.G2)).hasSize(2);
        assertThat(hashesOf(KvEvent.Stored.class, Tier.G3)).containsExactlyInAnyOrderElementsOf(all);
        assertThat(hashesOf(KvEvent.Removed.class, Tier.G1)).containsExactlyInAnyOrderElementsOf(all);
        assertThat(events).extracting(KvEvent::eventId)
                .containsExactlyElementsOf(LongStream.rangeClosed(1, events.size()).boxed().toList());
    }

    @Test
    void onlyBlocksHitOftenEnoughReachDisk() throws Exception {
        HostBlockStore host = closeLater(new HostBlockStore(8 * BLOCK_BYTES, BLOCK_BYTES));
        DiskBlockStore disk = closeLater(new DiskBlockStore(directory, 1 << 20, BLOCK_BYTES));
        OffloadManager manager = manager(new OffloadConfig(List.of(host, disk), OffloadPolicy.standard(), 8, 16), KvStats.NONE);
        BlockPool pool = pool(4, manager);
        List<StoredBlock> prompt = chain(4);
        cache(pool, prompt, 0);
        pool.free(pool.findCachedPrefix(new BlockHash[] {new BlockHash(1), new BlockHash(2)}));
        pool.free(pool.findCachedPrefix(new BlockHash[] {new BlockHash(1)}));

        allocate(pool, 4);
        manager.drained().get(30, TimeUnit.SECONDS);

        assertThat(host.blockCount()).isEqualTo(4);
        assertThat(disk.contains(new BlockHash(1))).isTrue();
        assertThat(disk.blockCount()).isEqualTo(1);
    }

    @Test
    void aCorruptDiskBlockEndsTheOnboardedPrefixAndIsReportedRemoved() throws Exception {
        DiskBlockStore disk = closeLater(new DiskBlockStore(directory, 1 << 20, BLOCK_BYTES));
        OffloadManager manager = manager(new OffloadConfig(List.of(disk), new OffloadPolicy(false, 0, false), 8, 16),
                KvStats.NONE);
        BlockPool pool = pool(3, manager);
        List<StoredBlock> prompt = chain(3);
        List<Long> crcs = cache(pool, prompt, 0);
        List<KvBlock> pages = allocate(pool, 3);
        manager.drained().get(30, TimeUnit.SECONDS);
        flipByte(disk.fileOf(new BlockHash(2)));

        OnboardTransfer transfer = onboard(manager, pool, prompt, 0, pages);

        assertThat(transfer.isStreamed()).isFalse();
        assertThat(transfer.done().get()).isEqualTo(1);
        assertThat(transfer.sources()).containsExactly(Tier.G3);
        assertThat(Pages.crc(pool.page(pages.getFirst()))).as("seed %d", seed).isEqualTo(crcs.getFirst());
        publisher.flush();
        assertThat(hashesOf(KvEvent.Removed.class, Tier.G3)).containsExactly(new BlockHash(2));
    }

    @Test
    void onboardAfterG1HitsStartsAtTheFirstMissingBlockAndStopsAtTheLimit() throws Exception {
        HostBlockStore host = closeLater(new HostBlockStore(8 * BLOCK_BYTES, BLOCK_BYTES));
        OffloadManager manager = manager(new OffloadConfig(List.of(host), OffloadPolicy.standard(), 8, 1), KvStats.NONE);
        BlockPool pool = pool(4, manager);
        List<StoredBlock> prompt = chain(3);
        List<Long> crcs = cache(pool, prompt, 0);
        manager.drained().get(30, TimeUnit.SECONDS);
        List<KvBlock> pages = allocate(pool, 3); // evicts blocks 3 and 2 (a sequence's tail goes first); 1 stays

        OnboardTransfer transfer = onboard(manager, pool, prompt, 1, pages);

        assertThat(transfer.done().get()).isEqualTo(1);
        assertThat(transfer.sources()).containsExactly(Tier.G2);
        assertThat(Pages.crc(pool.page(pages.getFirst()))).as("seed %d", seed).isEqualTo(crcs.get(1));
    }

    @Test
    void readLocalServesOwnTiersOnlyAndDropsCorruptCopies() throws Exception {
        HostBlockStore host = closeLater(new HostBlockStore(BLOCK_BYTES, BLOCK_BYTES));
        DiskBlockStore disk = closeLater(new DiskBlockStore(directory, 1 << 20, BLOCK_BYTES));
        HostBlockStore shared = closeLater(new HostBlockStore(4 * BLOCK_BYTES, BLOCK_BYTES));
        BlockStore grid = new RetieredStore(shared, Tier.G4);
        CollectorRegistry registry = new CollectorRegistry();
        OffloadManager manager = manager(new OffloadConfig(List.of(grid, disk, host), new OffloadPolicy(true, 0, false),
                8, 16), new PrometheusKvStats(registry));
        MemorySegment page = Pages.random(random, BLOCK_BYTES);
        host.put(new BlockHash(1), page);
        disk.put(new BlockHash(2), page);
        disk.put(new BlockHash(3), page);
        shared.put(new BlockHash(4), page);
        flipByte(disk.fileOf(new BlockHash(3)));
        MemorySegment target = Arena.ofAuto().allocate(BLOCK_BYTES);

        assertThat(manager.readLocal(new BlockHash(1), target)).isEqualTo(Tier.G2);
        assertThat(Pages.crc(target)).as("seed %d", seed).isEqualTo(Pages.crc(page));
        assertThat(manager.readLocal(new BlockHash(2), target)).isEqualTo(Tier.G3);
        assertThat(Pages.crc(target)).as("seed %d", seed).isEqualTo(Pages.crc(page));
        assertThat(manager.readLocal(new BlockHash(3), target)).isNull();
        assertThat(manager.readLocal(new BlockHash(4), target)).isNull();
        MemorySegment onboarded = Arena.ofAuto().allocate(BLOCK_BYTES);
        OnboardTransfer transfer = manager.onboard(List.of(new StoredBlock(new BlockHash(4), new LocalBlockHash(4))), 0,
                LAYOUT, count -> List.of(onboarded));
        assertThat(transfer.done().get(30, TimeUnit.SECONDS)).isEqualTo(1);
        assertThat(transfer.sources()).containsExactly(Tier.G4);
        assertThat(Pages.crc(onboarded)).as("seed %d", seed).isEqualTo(Pages.crc(page));
        publisher.flush();
        assertThat(hashesOf(KvEvent.Removed.class, Tier.G3)).containsExactly(new BlockHash(3));
        assertThat(registry.getSampleValue("squall_kv_block_discarded_total", new String[] {"tier"}, new String[] {"G3"}))
                .isEqualTo(1);
    }

    @Test
    void whatG2EvictsForRoomSpillsIntoG3AndComesBackFromThere() throws Exception {
        HostBlockStore host = closeLater(new HostBlockStore(2 * BLOCK_BYTES, BLOCK_BYTES));
        DiskBlockStore disk = closeLater(new DiskBlockStore(directory, 1 << 20, BLOCK_BYTES));
        OffloadManager manager = manager(new OffloadConfig(List.of(host, disk),
                new OffloadPolicy(true, Integer.MAX_VALUE, false, true), 8, 16), KvStats.NONE);
        BlockPool pool = pool(6, manager);
        List<StoredBlock> prompt = chain(5);
        List<Long> crcs = cache(pool, prompt, 0);
        manager.drained().get(30, TimeUnit.SECONDS);

        assertThat(host.blockCount()).isEqualTo(2);
        assertThat(disk.blockCount()).as("G2's three oldest, spilled").isEqualTo(3);
        List<KvBlock> pages = allocate(pool, 6);
        OnboardTransfer transfer = onboard(manager, pool, prompt, 0, pages);

        assertThat(transfer.done().get()).isEqualTo(5);
        assertThat(transfer.sources()).containsExactlyInAnyOrder(Tier.G3, Tier.G3, Tier.G3, Tier.G2, Tier.G2);
        for (int i = 0; i < prompt.size(); i++) {
            assertThat(Pages.crc(pool.page(pages.get(i)))).as("seed %d block %d", seed, i).isEqualTo(crcs.get(i));
        }
        publisher.flush();
        assertThat(hashesOf(KvEvent.Stored.class, Tier.G3)).hasSize(3);
        assertThat(hashesOf(KvEvent.Removed.class, Tier.G2)).containsExactlyInAnyOrderElementsOf(
                hashesOf(KvEvent.Stored.class, Tier.G3));
    }

    private void flipByte(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        bytes[bytes.length - 1 - random.nextInt((int) BLOCK_BYTES)] ^= 1;
        Files.write(file, bytes);
    }
}
