package io.squall.kvgrid.pool;

import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.KvEvent;
import io.squall.kvgrid.KvEvent.StoredBlock;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.WorkerId;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;

/**
 * Collects one worker's {@link KvEvent}s during a scheduler step and publishes them as one batch.
 *
 * <p>Events may be recorded from any thread (the pool's owner thread, the offload thread) without
 * locking; they wait in a lock-free queue in the order they were recorded. {@link #flush()} is called
 * by one thread at a time (the owner, once per step): it numbers the waiting events 1, 2, 3, … across
 * the worker's whole life and hands them to the sink as one list, so a consumer that sees a gap in the
 * ids knows it lost events. The queue holds at most one step's worth of events.
 */
public final class KvEventPublisher {

    /** An event still waiting for its id. */
    @FunctionalInterface
    private interface Draft {
        KvEvent withId(long eventId);
    }

    private final WorkerId worker;
    private final Consumer<List<KvEvent>> sink;
    private final ConcurrentLinkedQueue<Draft> pending = new ConcurrentLinkedQueue<>();
    private long lastEventId;

    /**
     * @param worker the worker whose events these are
     * @param sink   receives each non-empty batch, in id order, on the flushing thread
     */
    public KvEventPublisher(WorkerId worker, Consumer<List<KvEvent>> sink) {
        this.worker = Objects.requireNonNull(worker, "worker");
        this.sink = Objects.requireNonNull(sink, "sink");
    }

    public WorkerId worker() {
        return worker;
    }

    /** Records that {@code blocks}, chained after {@code parent} (nullable), became present in {@code tier}. */
    public void stored(BlockHash parent, List<StoredBlock> blocks, Tier tier) {
        List<StoredBlock> copy = List.copyOf(blocks);
        Objects.requireNonNull(tier, "tier");
        if (!copy.isEmpty()) {
            pending.add(id -> new KvEvent.Stored(worker, id, parent, copy, tier));
        }
    }

    /** Records that blocks with {@code hashes} stopped being present in {@code tier}. */
    public void removed(List<BlockHash> hashes, Tier tier) {
        List<BlockHash> copy = List.copyOf(hashes);
        Objects.requireNonNull(tier, "tier");
        if (!copy.isEmpty()) {
            pending.add(id -> new KvEvent.Removed(worker, id, copy, tier));
        }
    }

    /** Records that the worker dropped every block. */
    public void cleared() {
        pending.add(id -> new KvEvent.Cleared(worker, id));
    }

    /**
     * Numbers and publishes every waiting event as one batch. One flushing thread at a time.
     *
     * @return how many events were published
     */
    public int flush() {
        List<KvEvent> batch = new ArrayList<>();
        for (Draft draft = pending.poll(); draft != null; draft = pending.poll()) {
            batch.add(draft.withId(++lastEventId));
        }
        if (!batch.isEmpty()) {
            sink.accept(List.copyOf(batch));
        }
        return batch.size();
    }

    /** The id of the last published event, 0 before the first. Read on the flushing thread. */
    public long lastEventId() {
        return lastEventId;
    }
}
