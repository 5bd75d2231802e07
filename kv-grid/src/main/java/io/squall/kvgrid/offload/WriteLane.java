package io.squall.kvgrid.offload;

import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.metrics.KvStats;
import io.squall.kvgrid.pool.CommittedBlock;
import io.squall.kvgrid.pool.EvictedBlock;
import io.squall.kvgrid.pool.KvEventPublisher;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The offload manager's write lane: one thread that copies blocks down the tiers, as fast as the tiers
 * take them, most urgent first:
 *
 * <ol>
 *   <li>staged evictions (a page the pool evicted before a lower tier held it, copied into a staging
 *       buffer on the pool's thread, which is waiting to be reused);</li>
 *   <li>eager copies of committed blocks already released by every sequence (cached: the next eviction
 *       candidates), the ones hit most often first;</li>
 *   <li>eager copies of blocks still in use, the ones hit most often first, then in commit order.</li>
 * </ol>
 *
 * <p>A block evicted by G2 to make room is spilled into G3 when the policy says so (the spill buffer is
 * filled under G2's lock, written after). Every write records {@code Stored} (for a tier that did not hold
 * the block) and {@code Removed} for what a tier evicted, and keeps the {@link Residency} in step.
 *
 * <p>Onboards never queue here: they have lanes of their own ({@link OnboardLanes}).
 *
 * <p>Thread-safe: jobs may be submitted from any thread; they run on the lane's thread only. The queue holds
 * at most about two entries per G1 block plus one per staging buffer.
 */
final class WriteLane implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(WriteLane.class);
    /** Least time between two log lines about failed copies. */
    private static final long FAILURE_LOG_SECONDS = 10;

    /** Urgency classes, most urgent first. */
    private static final int STAGED = 0;
    private static final int RELEASED = 1;
    private static final int IN_USE = 2;
    private static final int BARRIER = 3;

    private record Job(int urgency, int hits, long order, Runnable work) {
    }

    private final OffloadConfig config;
    private final KvEventPublisher events;
    private final KvStats stats;
    private final StagingArea staging;
    private final Residency residency;
    private final long blockBytes;
    /** The tiers a block is copied to as soon as it is committed: those the policy wants with 0 hits. */
    private final List<BlockStore> eagerTargets;
    /** Where G2's evictions go, or {@code null}. */
    private final BlockStore spillTarget;
    private final Arena arena = Arena.ofShared();
    /** The lane's own page for eager copies bound for slow tiers, and the one for G2's spilled victims. */
    private final MemorySegment laneBuffer;
    private final MemorySegment spillBuffer;
    private final PriorityBlockingQueue<Job> queue = new PriorityBlockingQueue<>(64,
            Comparator.comparingInt(Job::urgency).thenComparing(Comparator.comparingInt(Job::hits).reversed())
                    .thenComparingLong(Job::order));
    private final AtomicLong order = new AtomicLong();
    private final Thread thread;
    private volatile boolean closing;
    /** Failed copies since the last line about them, and when that was; on the lane thread only. */
    private long failuresSinceLog;
    private long lastFailureLog = System.nanoTime() - TimeUnit.SECONDS.toNanos(FAILURE_LOG_SECONDS);
    /** Set on the lane thread by the spill callback of the put in progress: G2's victim, staged for G3. */
    private StagingArea.Staged spilled;

    WriteLane(OffloadConfig config, KvEventPublisher events, KvStats stats, StagingArea staging, Residency residency) {
        this.config = config;
        this.events = events;
        this.stats = stats;
        this.staging = staging;
        this.residency = residency;
        this.blockBytes = config.blockBytes();
        this.eagerTargets = config.stores().stream().filter(store -> config.policy().wants(store.tier(), 0)).toList();
        BlockStore host = config.store(Tier.G2);
        this.spillTarget = host != null && config.policy().spill() ? config.store(Tier.G3) : null;
        this.laneBuffer = arena.allocate(blockBytes, Long.BYTES);
        this.spillBuffer = arena.allocate(blockBytes, Long.BYTES);
        this.thread = Thread.ofPlatform().name("squall-kv-offload").daemon().start(this::run);
    }

    /** Whether committed blocks are copied down eagerly at all (some tier wants blocks with no hits). */
    boolean eager() {
        return !eagerTargets.isEmpty();
    }

    /** Queues the eager copy of a block just committed (still in use). */
    void committed(CommittedBlock block) {
        if (!closing) {
            submit(IN_USE, 0, () -> copyEagerly(block));
        }
    }

    /** Re-queues the eager copy of a block released before its copy started, ahead of blocks still in use. */
    void released(CommittedBlock block, int hits) {
        if (!closing) {
            submit(RELEASED, hits, () -> copyEagerly(block));
        }
    }

    /** Queues the writes of a page the pool evicted, staged in {@code staged}, to {@code targets}. */
    void staged(StagingArea.Staged staged, List<BlockStore> targets) {
        if (closing) {
            staging.retire(staged, true); // shut down: the copy is not made
            return;
        }
        submit(STAGED, 0, () -> {
            try {
                for (BlockStore store : targets) {
                    write(store, staged.contents, staged.bytes, Tier.G1);
                }
            } finally {
                staging.retire(staged, true);
            }
        });
    }

    /** Completes once every job queued before the call (and any more urgent one queued since) has run. */
    CompletableFuture<Void> drained() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        submit(BARRIER, 0, () -> done.complete(null));
        return done;
    }

    /** Blocks waiting in the queue. */
    int pending() {
        return queue.size();
    }

    private void submit(int urgency, int hits, Runnable work) {
        queue.add(new Job(urgency, hits, order.incrementAndGet(), work));
    }

    private void run() {
        while (true) {
            Job job;
            try {
                job = closing ? queue.poll() : queue.poll(1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                return;
            }
            if (job == null) {
                if (closing) {
                    return;
                }
                continue;
            }
            try {
                job.work().run();
            } catch (RuntimeException e) {
                LOG.warn("offload job failed", e);
            }
            stats.offloadsPending(queue.size());
        }
    }

    /**
     * Copies a committed block to the eager tiers that lack it, if the pool still holds it: straight from
     * the G1 page into G2 when that is the only tier to write, otherwise through the lane's buffer so the
     * page is released after one memcpy whatever the tiers' speed.
     */
    private void copyEagerly(CommittedBlock block) {
        if (!block.isQueued()) {
            return; // copied already, or evicted (the eviction staged it)
        }
        BlockHash hash = block.hash();
        List<BlockStore> missing = new ArrayList<>(eagerTargets.size());
        for (BlockStore store : eagerTargets) {
            boolean held = store.tier() == Tier.G4 ? residency.holds(hash, Tier.G4) : store.touch(hash);
            if (!held) {
                missing.add(store);
            }
        }
        if (!block.tryBegin()) {
            return;
        }
        StagingArea.Staged staged = null;
        boolean copied = false;
        try {
            if (missing.size() == 1 && missing.getFirst().tier() == Tier.G2) {
                copied = write(missing.getFirst(), block.contents(), block.page(), Tier.G1);
            } else if (!missing.isEmpty()) {
                MemorySegment.copy(block.page(), 0, laneBuffer, 0, blockBytes);
                staged = staging.publish(block.contents(), laneBuffer, missing.getFirst().tier());
                copied = true;
            } else {
                copied = true;
            }
        } finally {
            block.end(copied);
        }
        if (staged != null) {
            try {
                for (BlockStore store : missing) {
                    write(store, block.contents(), laneBuffer, Tier.G1);
                }
            } finally {
                staging.retire(staged, false);
            }
        }
    }

    /**
     * Writes one page to one store, recording events and statistics; a G2 victim moves on to the spill
     * tier. Failures are logged, not thrown.
     *
     * @return whether the store now holds the page
     */
    private boolean write(BlockStore store, EvictedBlock contents, MemorySegment page, Tier from) {
        BlockHash hash = contents.block().hash();
        try {
            boolean present = store.contains(hash);
            List<BlockHash> evicted = store == spillSource() ? store.put(hash, page, this::spill) : store.put(hash, page);
            residency.added(contents, store.tier());
            if (!evicted.isEmpty()) {
                events.removed(evicted, store.tier());
                stats.evicted(store.tier(), evicted.size());
            }
            if (!present) {
                events.stored(contents.parent(), List.of(contents.block()), store.tier());
            }
            stats.offloaded(from, store.tier(), 1);
            stats.blocks(store.tier(), store.blockCount());
            StagingArea.Staged victim = spilled;
            spilled = null;
            evicted.forEach(gone -> residency.removed(gone, store.tier()));
            if (victim != null) {
                try {
                    if (!spillTarget.touch(victim.contents.block().hash())) {
                        write(spillTarget, victim.contents, spillBuffer, store.tier());
                    }
                } finally {
                    staging.retire(victim, false);
                }
            }
            return true;
        } catch (RuntimeException e) {
            failed(hash, store.tier(), e);
            return false;
        } finally {
            if (spilled != null) { // the put failed after spilling: its buffer must not stay findable
                staging.retire(spilled, false);
                spilled = null;
            }
        }
    }

    /**
     * Counts a copy a tier refused and logs it, at most one line every {@value #FAILURE_LOG_SECONDS} s with the
     * count since the last: a disk that fills or goes away refuses every write, one per block committed.
     */
    private void failed(BlockHash hash, Tier tier, RuntimeException error) {
        stats.offloadFailed(tier, 1);
        failuresSinceLog++;
        long now = System.nanoTime();
        if (now - lastFailureLog >= TimeUnit.SECONDS.toNanos(FAILURE_LOG_SECONDS)) {
            LOG.warn("offload of block {} to {} failed ({} failed since the last such line): {}", hash, tier,
                    failuresSinceLog, error.toString());
            lastFailureLog = now;
            failuresSinceLog = 0;
        }
    }

    private BlockStore spillSource() {
        return spillTarget == null ? null : config.store(Tier.G2);
    }

    /**
     * G2's spill callback (under G2's lock, before the victim leaves it): keeps the victim's bytes for the
     * write to the spill tier and publishes them, so an onboard finds the block while it is in neither tier.
     */
    private void spill(BlockHash hash, MemorySegment page) {
        EvictedBlock contents = residency.contents(hash);
        if (contents == null) {
            return; // not one of ours (put directly into the store): nothing to say about it in G3
        }
        MemorySegment.copy(page, 0, spillBuffer, 0, blockBytes);
        spilled = staging.publish(contents, spillBuffer, spillTarget.tier());
    }

    /** Runs the jobs still queued (waiting at most {@code 30 s}), then frees the lane's memory. */
    @Override
    public void close() {
        closing = true;
        submit(BARRIER, 0, () -> { }); // wakes the lane if it is waiting for work
        try {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        if (thread.isAlive()) {
            LOG.warn("offload write lane did not finish within 30 s; abandoning it");
            thread.interrupt();
            return; // its buffers may still be in use: leave them to the process
        }
        arena.close();
    }
}
