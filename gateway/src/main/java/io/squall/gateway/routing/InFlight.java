package io.squall.gateway.routing;

import io.squall.functions.discovery.InstanceId;
import io.squall.functions.discovery.WorkerInstance;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A worker's load as this gateway sees it: the sequences and KV blocks it has sent there and not yet seen finish,
 * plus the load of everyone else, taken from the worker's latest report. Reports come on an interval, so between
 * two of them a report is stale in both directions: a burst of requests would all see the same idle report and go
 * to the same worker, and a request that just finished would still weigh on its worker (which, in a multi-turn
 * conversation, is exactly the worker the next turn should go to). So this gateway's own share of each report is
 * replaced by its live count: when a report arrives, the count it had then is noted, and the report's excess over
 * it is the load of other gateways. Thread-safe.
 */
public final class InFlight {

    private final Map<InstanceId, AtomicLong> sequences = new ConcurrentHashMap<>();
    private final Map<InstanceId, AtomicLong> blocks = new ConcurrentHashMap<>();
    private final Map<InstanceId, Baseline> baselines = new ConcurrentHashMap<>();
    private final Map<InstanceId, Prefilling> prefilling = new ConcurrentHashMap<>();

    /** Requests this gateway sent to a worker that has not yet returned their first token, and their uncached tokens. */
    public record Prefilling(long requests, long tokens) {
        static final Prefilling NONE = new Prefilling(0, 0);

        Prefilling plus(long tokens) {
            return new Prefilling(requests + 1, this.tokens + tokens);
        }

        Prefilling minus(long tokens) {
            return requests <= 1 ? NONE : new Prefilling(requests - 1, Math.max(0, this.tokens - tokens));
        }
    }

    /** A report and this gateway's own counts when it arrived. */
    private record Baseline(long reportedSequences, long reportedBlocks, long ownSequences, long ownBlocks) {
    }

    void started(InstanceId worker, long kvBlocks) {
        sequences.computeIfAbsent(worker, id -> new AtomicLong()).incrementAndGet();
        blocks.computeIfAbsent(worker, id -> new AtomicLong()).addAndGet(kvBlocks);
    }

    /** A request with {@code uncachedTokens} to compute was sent to {@code worker}. */
    void prefillStarted(InstanceId worker, long uncachedTokens) {
        prefilling.merge(worker, Prefilling.NONE.plus(uncachedTokens), (now, one) -> now.plus(uncachedTokens));
    }

    /** Its first token came back, or it ended without one. */
    void prefillEnded(InstanceId worker, long uncachedTokens) {
        prefilling.computeIfPresent(worker, (id, now) -> now.minus(uncachedTokens));
    }

    /** This gateway's requests waiting on {@code worker} for their first token. */
    public Prefilling prefilling(WorkerInstance worker) {
        return prefilling.getOrDefault(worker.id(), Prefilling.NONE);
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

    /** {@code worker} reported its load (it registered or updated its registration). */
    void reported(WorkerInstance worker) {
        baselines.put(worker.id(), new Baseline(reportedSequences(worker), reportedBlocks(worker),
                own(sequences, worker.id()), own(blocks, worker.id())));
    }

    void forget(InstanceId worker) {
        sequences.remove(worker);
        blocks.remove(worker);
        baselines.remove(worker);
        prefilling.remove(worker);
    }

    /** Sequences on {@code worker}: this gateway's live count plus other gateways' share of its latest report. */
    public long sequences(WorkerInstance worker) {
        Baseline baseline = baselines.get(worker.id());
        long own = own(sequences, worker.id());
        return baseline == null ? Math.max(reportedSequences(worker), own)
                : own + Math.max(0, baseline.reportedSequences() - baseline.ownSequences());
    }

    /** KV blocks held for running sequences on {@code worker}, counted like {@link #sequences}. */
    public long activeBlocks(WorkerInstance worker) {
        Baseline baseline = baselines.get(worker.id());
        long own = own(blocks, worker.id());
        return baseline == null ? Math.max(reportedBlocks(worker), own)
                : own + Math.max(0, baseline.reportedBlocks() - baseline.ownBlocks());
    }

    private static long own(Map<InstanceId, AtomicLong> counts, InstanceId worker) {
        AtomicLong count = counts.get(worker);
        return count == null ? 0 : Math.max(0, count.get());
    }

    private static long reportedSequences(WorkerInstance worker) {
        return (long) worker.load().activeSequences() + worker.load().queuedSequences();
    }

    private static long reportedBlocks(WorkerInstance worker) {
        return (long) worker.load().totalKvBlocks() - worker.load().freeKvBlocks();
    }
}
