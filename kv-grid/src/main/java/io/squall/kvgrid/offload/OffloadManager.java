package io.squall.kvgrid.offload;

import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.KvEvent.StoredBlock;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.metrics.KvStats;
import io.squall.kvgrid.pool.CommittedBlock;
import io.squall.kvgrid.pool.EvictedBlock;
import io.squall.kvgrid.pool.EvictionSink;
import io.squall.kvgrid.pool.KvEventPublisher;
import io.squall.kvgrid.pool.KvLayout;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves KV blocks between the G1 pool and the lower tiers, on three threads of its own.
 *
 * <p><b>Offload.</b> Blocks go down as soon as they are full, not when G1 runs out: as the pool's
 * {@link EvictionSink} the manager is lent every committed block and copies it to the tiers the
 * {@link OffloadPolicy} wants for blocks without hits (normally G2) on its write lane ({@link WriteLane}),
 * blocks already released first. The pool evicts blocks whose copy is done first, so an eviction under
 * pressure normally costs nothing. When it does find a block without the copies the policy wants (the lane
 * fell behind, the block was hit often enough for G3, or G2 has since dropped it), the page is copied into a
 * staging buffer on the pool's thread and written from there; if every staging buffer is busy the pool's
 * thread waits for one (backpressure, counted by {@link KvStats#offloadStalled}), and only when none comes
 * within {@value #MAX_STALL_MILLIS} ms drops the copy: counted by {@link KvStats#offloadDropped} and logged.
 * After such a timeout it does not wait again until the lane frees a buffer. G2's own evictions move down
 * to G3 when the policy {@linkplain OffloadPolicy#spill() spills}.
 *
 * <p><b>Onboard.</b> {@link #onboard} copies the blocks of a prompt that follow its G1 hits from the lower
 * tiers straight into G1 pages the caller takes for them, on two lanes that never queue behind the writes
 * ({@link OnboardLanes}): a run of blocks in host memory is pinned and streamed layer by layer, so the
 * caller may compute the prompt's tail meanwhile ({@link OnboardTransfer}); anything that may need disk or
 * another worker is read block by block and verified first. A block evicted a moment ago whose write has
 * not landed is found in its staging buffer.
 *
 * <p>Thread-safe; {@link #evicted}, {@link #committed}, {@link #released} and {@link #onboard} are meant for
 * the pool's owner thread and never block on I/O ({@link #evicted} may wait for the write lane, as above).
 * The manager does not own the stores: close them after closing the manager.
 */
public final class OffloadManager implements EvictionSink, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(OffloadManager.class);
    /** Longest wait of the pool's thread for a staging buffer, per evicted block, before dropping its copy. */
    static final long MAX_STALL_MILLIS = 50;
    /** Least time between two log lines about dropped copies. */
    private static final long DROP_LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final OffloadConfig config;
    private final KvStats stats;
    private final long blockBytes;
    private final StagingArea staging;
    private final Residency residency = new Residency();
    private final WriteLane writes;
    private final OnboardLanes onboards;
    private final AtomicLong dropped = new AtomicLong();
    private long lastDropLog = System.nanoTime() - DROP_LOG_INTERVAL_NANOS;
    /**
     * {@link StagingArea#returned()} when a wait for a staging buffer last timed out, or -1 if the last wait did
     * not; used on the pool's thread only.
     */
    private long stuckAtReturned = -1;

    /**
     * @param blockTokens tokens per block, for counting the prompt tokens each tier served
     */
    public OffloadManager(OffloadConfig config, KvEventPublisher events, KvStats stats, int blockTokens) {
        this.config = Objects.requireNonNull(config, "config");
        this.stats = Objects.requireNonNull(stats, "stats");
        Objects.requireNonNull(events, "events");
        if (blockTokens <= 0) {
            throw new IllegalArgumentException("blockTokens must be > 0");
        }
        this.blockBytes = config.blockBytes();
        this.staging = new StagingArea(config.stagingBuffers(), blockBytes);
        this.writes = new WriteLane(config, events, stats, staging, residency);
        this.onboards = new OnboardLanes(blockBytes, blockTokens, events, stats, residency);
    }

    @Override
    public boolean copiesEagerly() {
        return writes.eager();
    }

    @Override
    public void committed(CommittedBlock block) {
        writes.committed(block);
    }

    @Override
    public void released(CommittedBlock block, int hits) {
        writes.released(block, hits);
    }

    /**
     * Makes sure the tiers the policy wants for a block with its hits hold it, copying the page into a
     * staging buffer for the write lane if not; waits for a buffer (backpressure) and drops the copy only if
     * none frees up in time. Never does I/O.
     */
    @Override
    public void evicted(EvictedBlock block, MemorySegment page) {
        BlockHash hash = block.block().hash();
        if (staging.holds(hash)) {
            return; // its copy is on the way down
        }
        List<BlockStore> missing = new ArrayList<>();
        boolean held = false;
        for (BlockStore store : config.stores()) {
            if (holds(store, hash)) {
                held = true;
            } else if (config.policy().wants(store.tier(), block.hits())) {
                missing.add(store);
            }
        }
        if (held) {
            // Its eager copy is in some tier (it may have moved down since): only add the copies its hits earned.
            missing.removeIf(store -> config.policy().wants(store.tier(), 0));
        }
        if (missing.isEmpty()) {
            return;
        }
        MemorySegment buffer = stagingBuffer();
        if (buffer == null) {
            drop(hash);
            return;
        }
        MemorySegment.copy(page, 0, buffer, 0, blockBytes);
        writes.staged(staging.publish(block, buffer, missing.getFirst().tier()), missing);
    }

    /** Whether {@code store} holds the block; a local tier is asked (and marks it used: it was just in G1), G4 is remembered. */
    private boolean holds(BlockStore store, BlockHash hash) {
        return store.tier() == Tier.G4 ? residency.holds(hash, Tier.G4) : store.touch(hash);
    }

    /**
     * A free staging buffer, waiting for the write lane to free one if none is; but once a wait has timed out,
     * no other wait until the lane frees a buffer again (a stuck tier costs the pool's thread one wait, not
     * one per evicted block).
     */
    private MemorySegment stagingBuffer() {
        try {
            MemorySegment buffer = staging.take(0);
            if (buffer != null || staging.returned() == stuckAtReturned) {
                return buffer;
            }
            long start = System.nanoTime();
            buffer = staging.take(TimeUnit.MILLISECONDS.toNanos(MAX_STALL_MILLIS));
            stats.offloadStalled(System.nanoTime() - start);
            stuckAtReturned = buffer == null ? staging.returned() : -1;
            return buffer;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private void drop(BlockHash hash) {
        stats.offloadDropped(1);
        long total = dropped.incrementAndGet();
        long now = System.nanoTime();
        synchronized (dropped) {
            if (now - lastDropLog < DROP_LOG_INTERVAL_NANOS) {
                return;
            }
            lastDropLog = now;
        }
        LOG.warn("KV block {} evicted from G1 without its lower-tier copy: every staging "
                + "buffer stayed busy for {} ms ({} dropped so far); the lower tiers cannot keep up", hash,
                MAX_STALL_MILLIS, total);
    }

    /**
     * Starts bringing back the blocks of {@code prompt} that follow its first {@code g1Hits} (already in G1)
     * from the lower tiers, at most {@link OffloadConfig#maxOnboardBlocks()} of them, straight into G1 pages.
     * Plans at once on the caller's thread without I/O: the run of blocks in host memory is pinned (those still
     * staged on their way down are copied at once), the run after it that the disk tier's index holds is
     * counted, and with a G4 tier every block after that may come from it; then it asks {@code pages} for that
     * many pages and starts the copies on the onboard lanes.
     *
     * @param prompt the prompt's full blocks, in order
     * @param g1Hits how many leading blocks G1 already holds, 0 ≤ g1Hits ≤ prompt.size()
     * @param layout the pages' layout (its block size in bytes must be the tiers')
     * @param pages  given a count, returns that many G1 pages (of {@code layout}) for blocks {@code g1Hits, g1Hits
     *               + 1, …}, held by the caller and written by no one else until the transfer is done or closed;
     *               or {@code null} when it cannot (nothing is onboarded then)
     * @return the transfer; one already done with 0 blocks when no lower tier holds the next block
     */
    public OnboardTransfer onboard(List<StoredBlock> prompt, int g1Hits, KvLayout layout,
                                   IntFunction<List<MemorySegment>> pages) {
        Objects.requireNonNull(prompt, "prompt");
        Objects.requireNonNull(pages, "pages");
        if (g1Hits < 0 || g1Hits > prompt.size()) {
            throw new IllegalArgumentException("g1Hits must be within 0..prompt.size()");
        }
        if (layout.blockBytes() != blockBytes) {
            throw new IllegalArgumentException("pages of " + layout.blockBytes() + " bytes differ from the tiers' " + blockBytes);
        }
        int limit = Math.min(prompt.size() - g1Hits, config.maxOnboardBlocks());
        List<BlockHash> hashes = prompt.subList(g1Hits, g1Hits + limit).stream().map(StoredBlock::hash).toList();
        // The run in host memory: blocks still staged on their way down (copied once there are pages) or pinned.
        List<OnboardLanes.Pinned> pins = new ArrayList<>();
        List<Tier> found = new ArrayList<>();
        while (found.size() < limit) {
            int page = found.size();
            Tier staged = staging.tierOf(hashes.get(page));
            if (staged == null) {
                PinnedBlock pin = pinInMemory(hashes.get(page));
                if (pin == null) {
                    break;
                }
                pins.add(new OnboardLanes.Pinned(page, pin));
                staged = pin.tier();
            }
            found.add(staged);
        }
        int memoryRun = found.size();
        int count = memoryRun + slowRun(hashes.subList(memoryRun, limit));
        if (count == 0) {
            return OnboardTransfer.none();
        }
        List<MemorySegment> targets = pages.apply(count);
        if (targets == null || targets.size() != count) {
            pins.forEach(pin -> pin.block().close());
            return OnboardTransfer.none();
        }
        // Copy the staged blocks now; one whose write landed meanwhile is in its tier: pin it there, or end the run.
        BitSet pinned = new BitSet(memoryRun);
        pins.forEach(pin -> pinned.set(pin.page()));
        for (int page = pinned.nextClearBit(0); page < memoryRun; page = pinned.nextClearBit(page + 1)) {
            if (staging.copyOut(hashes.get(page), targets.get(page)) != null) {
                continue;
            }
            PinnedBlock pin = pinInMemory(hashes.get(page));
            if (pin == null) {
                int end = page;
                pins.removeIf(later -> later.page() > end && closed(later));
                memoryRun = end;
                count = end;
                break;
            }
            pins.add(new OnboardLanes.Pinned(page, pin));
            found.set(page, pin.tier());
        }
        if (count == 0) {
            return OnboardTransfer.none();
        }
        boolean streamed = count == memoryRun;
        OnboardTransfer transfer = new OnboardTransfer(targets.subList(0, count), streamed ? count : -1, layout.layers());
        for (int i = 0; i < memoryRun; i++) {
            transfer.source(i, found.get(i));
        }
        if (streamed) {
            onboards.stream(transfer, pins);
        } else {
            onboards.read(transfer, pins, memoryRun, hashes, config.stores());
        }
        return transfer;
    }

    /**
     * How many of {@code hashes}, from the first, the storage lane may read block by block: the run that this
     * worker's own tiers (G2, G3) hold once the run in memory has ended (a block on disk may be followed by
     * blocks in G2), or all of them when another worker or the grid (G4) may hold them.
     */
    private int slowRun(List<BlockHash> hashes) {
        if (config.store(Tier.G4) != null) {
            return hashes.size();
        }
        int run = 0;
        while (run < hashes.size() && heldLocally(hashes.get(run))) {
            run++;
        }
        return run;
    }

    private boolean heldLocally(BlockHash hash) {
        for (BlockStore store : config.stores()) {
            if (store.tier() != Tier.G4 && store.contains(hash)) {
                return true;
            }
        }
        return false;
    }

    private static boolean closed(OnboardLanes.Pinned pin) {
        pin.block().close();
        return true;
    }

    /** Pins the block in the first memory tier holding it; {@code null} if none does. */
    private PinnedBlock pinInMemory(BlockHash hash) {
        for (BlockStore store : config.stores()) {
            PinnedBlock pin = store.pin(hash);
            if (pin != null) {
                return pin;
            }
        }
        return null;
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
        for (BlockStore store : config.stores()) {
            if (store.tier() == Tier.G4) {
                continue;
            }
            ReadResult result = store.read(hash, target);
            if (result == ReadResult.HIT) {
                return store.tier();
            }
            if (result == ReadResult.DISCARDED) {
                onboards.discarded(hash, store);
            }
        }
        return null;
    }

    /** Size of every page the lower tiers hold, in bytes. */
    public long blockBytes() {
        return blockBytes;
    }

    /** Copies waiting on the write lane now. */
    public int pendingOffloads() {
        return writes.pending();
    }

    /**
     * Completes once the write lane has run every copy queued before this call: for a caller that wants the
     * lower tiers to reflect what G1 has committed and evicted so far (tests, benchmarks, a drain).
     */
    public CompletableFuture<Void> drained() {
        return writes.drained();
    }

    /**
     * Finishes queued copies and onboards (waiting at most {@code 30 s} each), then frees the staging
     * memory. Evictions after this are not offloaded.
     */
    @Override
    public void close() {
        writes.close();
        onboards.close();
        staging.close();
    }
}
