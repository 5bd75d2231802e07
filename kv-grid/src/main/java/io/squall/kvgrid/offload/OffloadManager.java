package io.squall.kvgrid.offload;

import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.KvEvent.StoredBlock;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.metrics.KvStats;
import io.squall.kvgrid.pool.EvictedBlock;
import io.squall.kvgrid.pool.EvictionSink;
import io.squall.kvgrid.pool.KvEventPublisher;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves KV blocks between the G1 pool and the lower tiers.
 *
 * <p><b>Offload.</b> As the pool's {@link EvictionSink}, it copies each evicted page into a staging
 * buffer on the pool's thread (one memcpy; no I/O, no blocking: if every staging buffer is busy the
 * block is simply not offloaded) and writes it to the tiers the {@link OffloadPolicy} picks on its own
 * offload thread, recording {@code Stored} (and {@code Removed} for what a tier evicted to make room)
 * with the lower tier.
 *
 * <p><b>Onboard.</b> {@link #onboard} finds, on the offload thread, the longest run of a prompt's blocks
 * continuing past its G1 hits that some lower tier holds (each block from the fastest tier holding it),
 * reads and verifies them into memory and completes the future with an {@link OnboardCopy}; the pool's
 * owner then {@linkplain OnboardCopy#install installs} it into fresh G1 blocks. Offloads and onboards
 * run in submission order on one thread, so an onboard sees every block evicted before it was called.
 *
 * <p>Thread-safe. The manager does not own the stores: close them after closing the manager.
 */
public final class OffloadManager implements EvictionSink, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(OffloadManager.class);

    private final OffloadConfig config;
    private final KvEventPublisher events;
    private final KvStats stats;
    private final long blockBytes;
    private final Arena stagingArena = Arena.ofShared();
    private final BlockingQueue<MemorySegment> freeStaging;
    private final ExecutorService thread;

    public OffloadManager(OffloadConfig config, KvEventPublisher events, KvStats stats) {
        this.config = Objects.requireNonNull(config, "config");
        this.events = Objects.requireNonNull(events, "events");
        this.stats = Objects.requireNonNull(stats, "stats");
        this.blockBytes = config.blockBytes();
        MemorySegment slab = stagingArena.allocate(blockBytes * config.stagingBuffers(), Long.BYTES);
        this.freeStaging = new ArrayBlockingQueue<>(config.stagingBuffers());
        for (int i = 0; i < config.stagingBuffers(); i++) {
            freeStaging.add(slab.asSlice(i * blockBytes, blockBytes));
        }
        this.thread = Executors.newSingleThreadExecutor(Thread.ofPlatform().name("squall-kv-offload").daemon().factory());
    }

    /** Copies the page to a staging buffer and queues its writes; never blocks. */
    @Override
    public void evicted(EvictedBlock block, MemorySegment page) {
        List<BlockStore> targets = config.stores().stream()
                .filter(store -> config.policy().wants(store.tier(), block.hits()))
                .toList();
        if (targets.isEmpty()) {
            return;
        }
        MemorySegment staging = freeStaging.poll();
        if (staging == null) {
            stats.offloadDropped(1);
            return;
        }
        MemorySegment.copy(page, 0, staging, 0, blockBytes);
        try {
            thread.execute(() -> write(block, staging, targets));
        } catch (RejectedExecutionException closed) {
            freeStaging.add(staging);
            stats.offloadDropped(1);
        }
    }

    private void write(EvictedBlock block, MemorySegment staging, List<BlockStore> targets) {
        BlockHash hash = block.block().hash();
        try {
            for (BlockStore store : targets) {
                try {
                    boolean present = store.contains(hash);
                    List<BlockHash> evicted = store.put(hash, staging);
                    if (!evicted.isEmpty()) {
                        events.removed(evicted, store.tier());
                        stats.evicted(store.tier(), evicted.size());
                    }
                    if (!present) {
                        events.stored(block.parent(), List.of(block.block()), store.tier());
                    }
                    stats.offloaded(Tier.G1, store.tier(), 1);
                    stats.blocks(store.tier(), store.blockCount());
                } catch (RuntimeException e) {
                    LOG.warn("offload of block {} to {} failed: {}",
                            hash, store.tier(), e.toString());
                }
            }
        } finally {
            freeStaging.add(staging);
        }
    }

    /**
     * Starts bringing back the blocks of {@code prompt} that follow its first {@code g1Hits} (already in
     * G1) from lower tiers, at most {@code maxOnboardBlocks}. Returns at once; the future completes on
     * the offload thread (with an empty copy when nothing continues the prefix, or exceptionally if a
     * store failed).
     *
     * @param prompt the prompt's full blocks, in order
     * @param g1Hits how many leading blocks G1 already holds, 0 ≤ g1Hits ≤ prompt.size()
     */
    public CompletableFuture<OnboardCopy> onboard(List<StoredBlock> prompt, int g1Hits) {
        List<StoredBlock> blocks = List.copyOf(prompt);
        if (g1Hits < 0 || g1Hits > blocks.size()) {
            throw new IllegalArgumentException("g1Hits must be within 0..prompt.size()");
        }
        return CompletableFuture.supplyAsync(() -> readPrefix(blocks, g1Hits), thread);
    }

    private OnboardCopy readPrefix(List<StoredBlock> prompt, int g1Hits) {
        int limit = Math.min(prompt.size() - g1Hits, config.maxOnboardBlocks());
        MemorySegment staged = Arena.ofAuto().allocate(Math.max(1, limit) * blockBytes, Long.BYTES);
        List<Tier> sources = new ArrayList<>();
        for (int i = 0; i < limit; i++) {
            Tier source = readAny(prompt.get(g1Hits + i).hash(), staged.asSlice(i * blockBytes, blockBytes));
            if (source == null) {
                break;
            }
            sources.add(source);
        }
        BlockHash parent = g1Hits == 0 ? null : prompt.get(g1Hits - 1).hash();
        return new OnboardCopy(parent, prompt.subList(g1Hits, g1Hits + sources.size()), sources, staged,
                blockBytes, stats);
    }

    /**
     * Reads the block from this worker's own lower tiers (G2, then G3) into {@code target} on the
     * caller's thread, for serving it to another worker; G4 (the shared grid, or other workers) is never
     * read, so serving cannot recurse into the cluster. A copy failing verification is dropped by its
     * store and recorded as removed. Thread-safe (the stores are); may block on disk I/O.
     *
     * @param target at least {@link OffloadConfig#blockBytes()} bytes; unspecified unless a tier is returned
     * @return the tier that yielded verified bytes, or {@code null} when no local tier holds the block
     */
    public Tier readLocal(BlockHash hash, MemorySegment target) {
        Objects.requireNonNull(hash, "hash");
        Objects.requireNonNull(target, "target");
        return readAny(hash, target, config.stores().stream().filter(store -> store.tier() != Tier.G4).toList());
    }

    /** Size of every page the lower tiers hold, in bytes. */
    public long blockBytes() {
        return blockBytes;
    }

    private Tier readAny(BlockHash hash, MemorySegment target) {
        return readAny(hash, target, config.stores());
    }

    /** Reads the block from the fastest of {@code stores} that yields verified bytes; {@code null} if none does. */
    private Tier readAny(BlockHash hash, MemorySegment target, List<BlockStore> stores) {
        for (BlockStore store : stores) {
            ReadResult result = store.read(hash, target);
            if (result == ReadResult.HIT) {
                return store.tier();
            }
            if (result == ReadResult.DISCARDED) {
                events.removed(List.of(hash), store.tier());
                stats.blocks(store.tier(), store.blockCount());
            }
        }
        return null;
    }

    /**
     * Finishes queued offloads and onboards (waiting at most {@code 30 s}), then frees the staging
     * memory. Evictions after this are not offloaded.
     */
    @Override
    public void close() {
        thread.shutdown();
        try {
            if (!thread.awaitTermination(30, TimeUnit.SECONDS)) {
                LOG.warn("offload thread did not finish within 30 s; abandoning it");
                thread.shutdownNow();
                return; // the staging memory may still be in use: leave it to the process
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        stagingArena.close();
    }
}
