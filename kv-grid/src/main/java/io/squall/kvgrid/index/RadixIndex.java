package io.squall.kvgrid.index;

import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.KvEvent;
import io.squall.kvgrid.WorkerId;
import java.util.Set;

/**
 * Which workers hold which KV blocks, in which tier, kept current by the workers' {@link KvEvent}s.
 * A block is identified by its chained {@link BlockHash}, which stands for the whole prefix up to and
 * including the block, so the radix tree of prefixes needs no explicit edges: block {@code i} of a
 * prompt is a node of the tree exactly when its hash is known.
 *
 * <p>Events of one worker must be applied in the worker's event-id order; events of different
 * workers may interleave freely. Each worker's ids are checked: a gap or a stale id is reported by
 * {@link #apply} so the owner can ask the worker for a snapshot and {@link #replace} its state.
 *
 * <p>Implementations are <b>not thread-safe</b>: one owner thread calls every method ({@link
 * KvIndexer} is that owner for the router).
 */
public interface RadixIndex {

    /**
     * Applies one event. A {@link KvEvent.Removed} of a block the worker does not hold in that tier
     * is ignored. The event is applied even when a gap precedes it; a stale event (id not above the
     * last applied one) is ignored.
     *
     * @return {@link ApplyOutcome#APPLIED}, or the gap or stale id the owner should act on
     */
    ApplyOutcome apply(KvEvent event);

    /**
     * A hint that {@code event} will be {@link #apply applied} soon: an implementation may start
     * loading the memory the event will touch, so that when a batch of events is applied the cache
     * misses of later events overlap the work on earlier ones. Changes nothing observable; the
     * event need not be applied afterwards. The default does nothing.
     */
    default void prefetch(KvEvent event) {
    }

    /**
     * For each worker, how many leading blocks of {@code prompt} it holds, per tier. Runs in time
     * linear in {@code prompt.length} (blocks), whatever the number of cached blocks.
     *
     * @param prompt the prompt's chained block hashes, first block first
     */
    OverlapScores findMatches(BlockHash[] prompt);

    /** Forgets a worker that left the cluster: its blocks in every tier and its event-id history. */
    void removeWorker(WorkerId worker);

    /**
     * The worker's blocks as {@link KvEvent.Stored} events (one per block, each with its recorded
     * parent, in no particular order), stamped with the last applied event id. An unknown worker
     * yields an empty snapshot at event id 0.
     */
    WorkerSnapshot dump(WorkerId worker);

    /**
     * Replaces everything known about {@code snapshot.worker()} with the snapshot's blocks; the next
     * expected event id becomes {@code snapshot.lastEventId() + 1}.
     */
    void replace(WorkerSnapshot snapshot);

    /** Workers with at least one applied event or snapshot. */
    Set<WorkerId> workers();
}
