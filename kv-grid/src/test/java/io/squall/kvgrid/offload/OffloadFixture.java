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
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What offload tests share: a seeded random source, an event log, pools and managers closed after each test. */
abstract class OffloadFixture {

    private static final Logger LOG = LoggerFactory.getLogger(OffloadFixture.class);
    static final KvLayout LAYOUT = new KvLayout(2, 2, 4, 4, KvElementType.F32);
    static final long BLOCK_BYTES = LAYOUT.blockBytes();

    @TempDir
    Path directory;

    final List<KvEvent> events = Collections.synchronizedList(new ArrayList<>());
    final KvEventPublisher publisher = new KvEventPublisher(new WorkerId(9), events::addAll);
    private final List<AutoCloseable> closeables = new ArrayList<>();
    Random random;
    long seed;

    @BeforeEach
    void seed() {
        seed = System.nanoTime();
        LOG.info("{} seed={}", getClass().getSimpleName(), seed);
        random = new Random(seed);
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable closeable : closeables.reversed()) {
            closeable.close();
        }
    }

    <T extends AutoCloseable> T closeLater(T closeable) {
        closeables.add(closeable);
        return closeable;
    }

    OffloadManager manager(OffloadConfig config, KvStats stats) {
        return closeLater(new OffloadManager(config, publisher, stats, LAYOUT.blockSize()));
    }

    BlockPool pool(int blocks, OffloadManager manager) {
        return closeLater(new BlockPool(new BlockPoolConfig(LAYOUT, blocks), EvictionPolicy.lru(), publisher, manager,
                KvStats.NONE));
    }

    static List<StoredBlock> chain(int n) {
        return LongStream.rangeClosed(1, n)
                .mapToObj(h -> new StoredBlock(new BlockHash(h), new LocalBlockHash(-h))).toList();
    }

    static List<KvBlock> allocate(BlockPool pool, int n) {
        return ((Allocation.Allocated) pool.allocate(n)).blocks();
    }

    /** Caches the chain in G1 with random pages, hits it {@code hits} times; returns the pages' CRCs. */
    List<Long> cache(BlockPool pool, List<StoredBlock> chain, int hits) {
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

    /** Onboards the prompt's blocks after {@code g1Hits} into {@code pages} and waits for the transfer. */
    static OnboardTransfer onboard(OffloadManager manager, BlockPool pool, List<StoredBlock> prompt, int g1Hits,
                                   List<KvBlock> pages) throws Exception {
        OnboardTransfer transfer = manager.onboard(prompt, g1Hits, LAYOUT,
                count -> pages.subList(0, Math.min(count, pages.size())).stream().map(pool::page).toList());
        assertThat(transfer.done().get(30, TimeUnit.SECONDS)).isNotNegative();
        return transfer;
    }

    /** Another store presented as a different tier (a test's G3 or G4 in host memory); closes nothing. */
    static class RetieredStore implements BlockStore {
        final BlockStore inner;
        private final Tier tier;

        RetieredStore(BlockStore inner, Tier tier) {
            this.inner = inner;
            this.tier = tier;
        }

        @Override
        public Tier tier() {
            return tier;
        }

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

    List<BlockHash> hashesOf(Class<? extends KvEvent> type, Tier tier) {
        List<BlockHash> hashes = new ArrayList<>();
        for (KvEvent event : List.copyOf(events)) {
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
}
