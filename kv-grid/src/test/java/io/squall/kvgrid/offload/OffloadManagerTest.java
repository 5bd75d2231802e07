package io.squall.kvgrid.offload;

import static org.assertj.core.api.Assertions.assertThat;

import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.KvEvent;
import io.squall.kvgrid.KvEvent.StoredBlock;
import io.squall.kvgrid.LocalBlockHash;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.WorkerId;
import io.squall.kvgrid.metrics.KvStats;
import io.squall.kvgrid.pool.Allocation;
import io.squall.kvgrid.pool.BlockPool;
import io.squall.kvgrid.pool.BlockPoolConfig;
import io.squall.kvgrid.pool.EvictionPolicy;
import io.squall.kvgrid.pool.KvBlock;
import io.squall.kvgrid.pool.KvElementType;
import io.squall.kvgrid.pool.KvEventPublisher;
import io.squall.kvgrid.pool.KvLayout;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

class OffloadManagerTest {

    private static final Logger LOG = LoggerFactory.getLogger(OffloadManagerTest.class);
    private static final KvLayout LAYOUT = new KvLayout(2, 2, 4, 4, KvElementType.F32);
    private static final long BLOCK_BYTES = LAYOUT.blockBytes();

    @TempDir
    Path directory;

    private final List<KvEvent> events = new ArrayList<>();
    private final KvEventPublisher publisher = new KvEventPublisher(new WorkerId(9), events::addAll);
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private Random random;
    private long seed;

    @BeforeEach
    void seed() {
        seed = System.nanoTime();
        LOG.info("OffloadManagerTest seed={}", seed);
        random = new Random(seed);
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable closeable : closeables.reversed()) {
            closeable.close();
        }
    }

    private <T extends AutoCloseable> T closeLater(T closeable) {
        closeables.add(closeable);
        return closeable;
    }

    private static List<StoredBlock> chain(int n) {
        return LongStream.rangeClosed(1, n)
                .mapToObj(h -> new StoredBlock(new BlockHash(h), new LocalBlockHash(-h))).toList();
    }

    private static List<KvBlock> allocate(BlockPool pool, int n) {
        return ((Allocation.Allocated) pool.allocate(n)).blocks();
    }

    /** Caches the chain in G1 with random pages, hits it {@code hits} times; returns the pages' CRCs. */
    private List<Long> cache(BlockPool pool, List<StoredBlock> chain, int hits) {
        List<KvBlock> blocks = allocate(pool, chain.size());
        List<Long> crcs = new ArrayList<>();
        BlockHash parent = null;
        for (int i = 0; i < chain.size(); i++) {
            pool.page(blocks.get(i)).copyFrom(Pages.random(random, BLOCK_BYTES));
            crcs.add(Pages.crc(pool.page(blocks.get(i))));
            pool.commit(blocks.get(i), parent, chain.get(i));
            parent = chain.get(i).hash();
        }
        pool.free(blocks);
        BlockHash[] hashes = chain.stream().map(StoredBlock::hash).toArray(BlockHash[]::new);
        for (int i = 0; i < hits; i++) {
            pool.free(pool.findCachedPrefix(hashes));
        }
        return crcs;
    }

    private List<BlockHash> hashesOf(Class<? extends KvEvent> type, Tier tier) {
        List<BlockHash> hashes = new ArrayList<>();
        for (KvEvent event : events) {
            switch (event) {
                case KvEvent.Stored s when type == KvEvent.Stored.class && s.tier() == tier ->
                        s.blocks().forEach(b -> hashes.add(b.hash()));
                case KvEvent.Removed r when type == KvEvent.Removed.class && r.tier() == tier ->
                        hashes.addAll(r.hashes());
                default -> { }
            }
        }
        return hashes;
    }

    @Test
    void evictedBlocksRoundTripThroughHostAndDiskByteForByte() throws Exception {
        HostBlockStore host = closeLater(new HostBlockStore(2 * BLOCK_BYTES, BLOCK_BYTES));
        DiskBlockStore disk = closeLater(new DiskBlockStore(directory, 1 << 20, BLOCK_BYTES));
        OffloadManager manager = closeLater(new OffloadManager(
                new OffloadConfig(List.of(disk, host), OffloadPolicy.standard(), 8, 16), publisher, KvStats.NONE));
        BlockPool pool = closeLater(new BlockPool(new BlockPoolConfig(LAYOUT, 4), EvictionPolicy.lru(), publisher,
                manager, KvStats.NONE));
        List<StoredBlock> prompt = chain(4);
        List<Long> crcs = cache(pool, prompt, 2);

        List<KvBlock> scratch = allocate(pool, 4);
        OnboardCopy copy = manager.onboard(prompt, 0).get(30, TimeUnit.SECONDS);
        pool.free(scratch);

        assertThat(copy.blocks()).isEqualTo(prompt);
        assertThat(copy.sources()).containsOnly(Tier.G2, Tier.G3).contains(Tier.G2, Tier.G3);
        List<KvBlock> onboarded = ((Allocation.Allocated) copy.install(pool)).blocks();
        for (int i = 0; i < onboarded.size(); i++) {
            assertThat(Pages.crc(pool.page(onboarded.get(i)))).as("seed %d block %d", seed, i).isEqualTo(crcs.get(i));
            assertThat(onboarded.get(i).hash()).isEqualTo(prompt.get(i).hash());
        }
        publisher.flush();
        List<BlockHash> all = prompt.stream().map(StoredBlock::hash).toList();
        assertThat(hashesOf(KvEvent.Stored.class, Tier.G2)).containsExactlyInAnyOrderElementsOf(all);
        assertThat(hashesOf(KvEvent.Removed.class, Tier.G2)).hasSize(2);
        assertThat(hashesOf(KvEvent.Stored.class, Tier.G3)).containsExactlyInAnyOrderElementsOf(all);
        assertThat(hashesOf(KvEvent.Removed.class, Tier.G1)).containsExactlyInAnyOrderElementsOf(all);
        assertThat(hashesOf(KvEvent.Stored.class, Tier.G1)).hasSize(8);
        assertThat(events).extracting(KvEvent::eventId)
                .containsExactlyElementsOf(LongStream.rangeClosed(1, events.size()).boxed().toList());
    }

    @Test
    void onlyBlocksHitOftenEnoughReachDisk() throws Exception {
        HostBlockStore host = closeLater(new HostBlockStore(8 * BLOCK_BYTES, BLOCK_BYTES));
        DiskBlockStore disk = closeLater(new DiskBlockStore(directory, 1 << 20, BLOCK_BYTES));
        OffloadManager manager = closeLater(new OffloadManager(
                new OffloadConfig(List.of(host, disk), OffloadPolicy.standard(), 8, 16), publisher, KvStats.NONE));
        BlockPool pool = closeLater(new BlockPool(new BlockPoolConfig(LAYOUT, 4), EvictionPolicy.lru(), publisher,
                manager, KvStats.NONE));
        List<StoredBlock> prompt = chain(4);
        cache(pool, prompt, 0);
        pool.free(pool.findCachedPrefix(new BlockHash[] {new BlockHash(1), new BlockHash(2)}));
        pool.free(pool.findCachedPrefix(new BlockHash[] {new BlockHash(1)}));

        allocate(pool, 4);
        manager.onboard(List.of(), 0).get(30, TimeUnit.SECONDS);

        assertThat(host.blockCount()).isEqualTo(4);
        assertThat(disk.contains(new BlockHash(1))).isTrue();
        assertThat(disk.blockCount()).isEqualTo(1);
    }

    @Test
    void aCorruptDiskBlockEndsTheOnboardedPrefixAndIsReportedRemoved() throws Exception {
        DiskBlockStore disk = closeLater(new DiskBlockStore(directory, 1 << 20, BLOCK_BYTES));
        OffloadManager manager = closeLater(new OffloadManager(
                new OffloadConfig(List.of(disk), new OffloadPolicy(false, 0, false), 8, 16), publisher, KvStats.NONE));
        BlockPool pool = closeLater(new BlockPool(new BlockPoolConfig(LAYOUT, 3), EvictionPolicy.lru(), publisher,
                manager, KvStats.NONE));
        List<StoredBlock> prompt = chain(3);
        List<Long> crcs = cache(pool, prompt, 0);
        List<KvBlock> scratch = allocate(pool, 3);
        manager.onboard(List.of(), 0).get(30, TimeUnit.SECONDS);
        flipByte(disk.fileOf(new BlockHash(2)));

        OnboardCopy copy = manager.onboard(prompt, 0).get(30, TimeUnit.SECONDS);
        pool.free(scratch);

        assertThat(copy.blocks()).containsExactly(prompt.getFirst());
        KvBlock first = ((Allocation.Allocated) copy.install(pool)).blocks().getFirst();
        assertThat(Pages.crc(pool.page(first))).as("seed %d", seed).isEqualTo(crcs.getFirst());
        publisher.flush();
        assertThat(hashesOf(KvEvent.Removed.class, Tier.G3)).containsExactly(new BlockHash(2));
    }

    @Test
    void onboardAfterG1HitsChainsToTheLastHit() throws Exception {
        HostBlockStore host = closeLater(new HostBlockStore(8 * BLOCK_BYTES, BLOCK_BYTES));
        OffloadManager manager = closeLater(new OffloadManager(
                new OffloadConfig(List.of(host), OffloadPolicy.standard(), 8, 1), publisher, KvStats.NONE));
        BlockPool pool = closeLater(new BlockPool(new BlockPoolConfig(LAYOUT, 4), EvictionPolicy.lru(), publisher,
                manager, KvStats.NONE));
        List<StoredBlock> prompt = chain(3);
        cache(pool, prompt, 0);
        pool.free(allocate(pool, 3));
        events.clear();

        OnboardCopy copy = manager.onboard(prompt, 1).get(30, TimeUnit.SECONDS);
        copy.install(pool);
        publisher.flush();

        assertThat(copy.blocks()).containsExactly(prompt.get(1));
        assertThat(events.getLast()).isInstanceOfSatisfying(KvEvent.Stored.class, stored -> {
            assertThat(stored.parent()).isEqualTo(new BlockHash(1));
            assertThat(stored.tier()).isEqualTo(Tier.G1);
        });
    }

    @Test
    void readLocalServesOwnTiersOnlyAndDropsCorruptCopies() throws Exception {
        HostBlockStore host = closeLater(new HostBlockStore(BLOCK_BYTES, BLOCK_BYTES));
        DiskBlockStore disk = closeLater(new DiskBlockStore(directory, 1 << 20, BLOCK_BYTES));
        HostBlockStore shared = closeLater(new HostBlockStore(4 * BLOCK_BYTES, BLOCK_BYTES));
        BlockStore grid = new ForwardingStore(shared, Tier.G4);
        OffloadManager manager = closeLater(new OffloadManager(
                new OffloadConfig(List.of(grid, disk, host), new OffloadPolicy(true, 0, false), 8, 16), publisher,
                KvStats.NONE));
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
        assertThat(manager.onboard(List.of(new StoredBlock(new BlockHash(4), new LocalBlockHash(4))), 0)
                .get(30, TimeUnit.SECONDS).sources()).containsExactly(Tier.G4);
        publisher.flush();
        assertThat(hashesOf(KvEvent.Removed.class, Tier.G3)).containsExactly(new BlockHash(3));
    }

    /** A store presenting another one as a different tier. */
    private record ForwardingStore(BlockStore inner, Tier tier) implements BlockStore {
        @Override
        public long blockBytes() {
            return inner.blockBytes();
        }

        @Override
        public List<BlockHash> put(BlockHash hash, MemorySegment page) {
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
        }
    }

    private void flipByte(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        bytes[bytes.length - 1 - random.nextInt((int) BLOCK_BYTES)] ^= 1;
        Files.write(file, bytes);
    }
}
