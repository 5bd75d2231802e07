package io.squall.gateway.routing;

import io.squall.functions.discovery.InstanceId;
import io.squall.functions.discovery.WorkerInstance;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What this gateway has sent to each worker and not yet seen finish: sequences and the KV blocks their
 * prompts and outputs will hold. Workers report their load on an interval; between two reports a burst of
 * requests would all see the same stale report and go to the same worker, so policies combine the report
 * with these counts, which change the moment a request is routed or ends. Thread-safe.
 */
public final class InFlight {

    private final Map<InstanceId, AtomicLong> sequences = new ConcurrentHashMap<>();
    private final Map<InstanceId, AtomicLong> blocks = new ConcurrentHashMap<>();

    void started(InstanceId worker, long kvBlocks) {
        sequences.computeIfAbsent(worker, id -> new AtomicLong()).incrementAndGet();
        blocks.computeIfAbsent(worker, id -> new AtomicLong()).addAndGet(kvBlocks);
    }

    void finished(InstanceId worker, long kvBlocks) {
        AtomicLong s = sequences.get(worker);
        AtomicLong b = blocks.get(worker);
        if (s != null) {
            s.decrementAndGet();
        }
        if (b != null) {
            b.addAndGet(-kvBlocks);
        }
    }

    void forget(InstanceId worker) {
        sequences.remove(worker);
        blocks.remove(worker);
    }

    /** Sequences on {@code worker}: the larger of its report (running and queued) and this gateway's count. */
    public long sequences(WorkerInstance worker) {
        AtomicLong mine = sequences.get(worker.id());
        long reported = (long) worker.load().activeSequences() + worker.load().queuedSequences();
        return Math.max(reported, mine == null ? 0 : mine.get());
    }

    /** KV blocks held for running sequences on {@code worker}: the larger of its report and this gateway's count. */
    public long activeBlocks(WorkerInstance worker) {
        AtomicLong mine = blocks.get(worker.id());
        long reported = (long) worker.load().totalKvBlocks() - worker.load().freeKvBlocks();
        return Math.max(reported, mine == null ? 0 : mine.get());
    }
}
