package io.squall.gateway.routing;

import io.squall.functions.discovery.InstanceId;
import io.squall.functions.discovery.WorkerInstance;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A worker's load as this gateway sees it: the sequences and KV blocks it has sent there and not yet seen finish,
 * plus the load of everyone else, taken from the worker's latest report. Reports come on an interval, so between
 * two of them a report is stale in both directions: a burst of requests would all see the same idle report and go
 * to the same worker, and a request that just finished would still weigh on its worker (which, in a multi-turn
 * conversation, is exactly the worker the next turn should go to). So this gateway's own share of each report is
 * replaced by its live count, and the report's excess over that share is the load of other gateways. The share is
 * the most this gateway had there since the previous report arrived: a report comes over another channel than the
 * streams, so one sampled while a request ran can arrive after its end, and counting that request as another
 * gateway's would send the next turn away from the worker holding its prefix. Taking the most errs the other way,
 * by this gateway's ends in one report interval, until the next report.
 *
 * <p>It also keeps, per worker, the requests still waiting for their first token, newest last, so the prompt work
 * queued there is known (for routing by predicted time) and a worker that joins can take some of it over
 * ({@link #takeFor}). Thread-safe.
 */
public final class InFlight {

    private final Map<InstanceId, Own> own = new ConcurrentHashMap<>();
    private final Map<InstanceId, Baseline> baselines = new ConcurrentHashMap<>();
    private final Map<InstanceId, Line> prefilling = new ConcurrentHashMap<>();

    /** Requests this gateway sent to a worker that has not yet returned their first token, and their uncached tokens. */
    public record Prefilling(long requests, long tokens) {
        static final Prefilling NONE = new Prefilling(0, 0);
    }

    /**
     * A request waiting on a worker for its first token. It ends waiting once, either way: its first token came
     * back (or it ended without one), or it was taken to move to another worker before that.
     */
    static final class Waiting {
        private static final int WAITING = 0;
        private static final int ENDED = 1;
        private static final int MOVED = 2;

        final long tokens;
        private final AtomicInteger state = new AtomicInteger(WAITING);
        private final Sinks.One<WorkerInstance> moved = Sinks.one();

        private Waiting(long tokens) {
            this.tokens = tokens;
        }

        /** The worker it moves to, once taken; never completes for a request that stays. */
        Mono<WorkerInstance> moved() {
            return moved.asMono();
        }

        boolean wasMoved() {
            return state.get() == MOVED;
        }

        /** Resumes a request taken by {@link InFlight#takeFor} on {@code worker}. */
        void moveTo(WorkerInstance worker) {
            moved.tryEmitValue(worker);
        }
    }

    /** One worker's waiting requests from this gateway, oldest first; the newest wait longest, so they move first. */
    private static final class Line {
        private final ArrayDeque<Waiting> requests = new ArrayDeque<>();
        private long tokens;

        synchronized void add(Waiting request) {
            requests.addLast(request);
            tokens += request.tokens;
        }

        synchronized void remove(Waiting request) {
            if (requests.removeLastOccurrence(request)) {
                tokens -= request.tokens;
            }
        }

        synchronized Prefilling snapshot() {
            return requests.isEmpty() ? Prefilling.NONE : new Prefilling(requests.size(), tokens);
        }

        synchronized long tokens() {
            return tokens;
        }

        /** Takes the newest request if moving it leaves this line no shorter than {@code receiver}'s, else null. */
        synchronized Waiting takeNewestFor(long receiver) {
            Waiting newest = requests.peekLast();
            if (newest == null || receiver + newest.tokens > tokens - newest.tokens
                    || !newest.state.compareAndSet(Waiting.WAITING, Waiting.MOVED)) {
                return null;
            }
            requests.removeLast();
            tokens -= newest.tokens;
            return newest;
        }
    }

    /** A report's excess over this gateway's share of it: the load of other gateways. */
    private record Baseline(long otherSequences, long otherBlocks) {
    }

    /** This gateway's sequences and their KV blocks on one worker, and the most of each since the last report. */
    private static final class Own {
        private long sequences;
        private long blocks;
        private long peakSequences;
        private long peakBlocks;

        synchronized void started(long kvBlocks) {
            sequences++;
            blocks += kvBlocks;
            peakSequences = Math.max(peakSequences, sequences);
            peakBlocks = Math.max(peakBlocks, blocks);
        }

        synchronized void finished(long kvBlocks) {
            sequences = Math.max(0, sequences - 1);
            blocks = Math.max(0, blocks - kvBlocks);
        }

        synchronized long sequences() {
            return sequences;
        }

        synchronized long blocks() {
            return blocks;
        }

        /** {@code report}'s excess over the most this gateway had since the previous report; the next one starts now. */
        synchronized Baseline others(long reportedSequences, long reportedBlocks) {
            Baseline others = new Baseline(Math.max(0, reportedSequences - peakSequences),
                    Math.max(0, reportedBlocks - peakBlocks));
            peakSequences = sequences;
            peakBlocks = blocks;
            return others;
        }
    }

    void started(InstanceId worker, long kvBlocks) {
        own.computeIfAbsent(worker, id -> new Own()).started(kvBlocks);
    }

    /** A request with {@code uncachedTokens} to compute was sent to {@code worker}; it waits for its first token. */
    Waiting prefillStarted(InstanceId worker, long uncachedTokens) {
        Waiting request = new Waiting(uncachedTokens);
        prefilling.computeIfAbsent(worker, id -> new Line()).add(request);
        return request;
    }

    /**
     * Its first token came back, or it ended without one: false if it had been taken to move, when its stream
     * here is being cancelled and nothing of it may be passed on.
     */
    boolean prefillEnded(InstanceId worker, Waiting request) {
        int state = request.state.get(); // called for every token: a plain read once it has ended
        if (state != Waiting.WAITING || !request.state.compareAndSet(Waiting.WAITING, Waiting.ENDED)) {
            return request.state.get() == Waiting.ENDED;
        }
        Line line = prefilling.get(worker);
        if (line != null) {
            line.remove(request);
        }
        return true;
    }

    /** This gateway's requests waiting on {@code worker} for their first token. */
    public Prefilling prefilling(WorkerInstance worker) {
        Line line = prefilling.get(worker.id());
        return line == null ? Prefilling.NONE : line.snapshot();
    }

    /**
     * Evens out the prompt work queued on the other workers with {@code joined}, which just joined: repeatedly the
     * newest waiting request of the most queued worker that can give one is taken, as long as its worker is left
     * no less queued than {@code joined} becomes. The requests taken are no longer waiting anywhere; each must be
     * sent {@link Waiting#moveTo} {@code joined}, where its stream starts again.
     */
    List<Waiting> takeFor(InstanceId joined) {
        List<Waiting> taken = new ArrayList<>();
        Line own = prefilling.get(joined);
        long receiver = own == null ? 0 : own.tokens();
        for (Waiting request = takeOne(joined, receiver); request != null; request = takeOne(joined, receiver)) {
            receiver += request.tokens;
            taken.add(request);
        }
        return taken;
    }

    /** The newest waiting request of the most queued worker but {@code joined} that can give one, or null. */
    private Waiting takeOne(InstanceId joined, long receiver) {
        // queues change while this runs: order by a snapshot of each, not by a key that moves under the sort
        record Queued(Line line, long tokens) {
        }
        List<Queued> donors = prefilling.entrySet().stream().filter(e -> !e.getKey().equals(joined))
                .map(e -> new Queued(e.getValue(), e.getValue().tokens()))
                .sorted(Comparator.comparingLong(Queued::tokens).reversed()).toList();
        for (Queued donor : donors) {
            Waiting request = donor.line().takeNewestFor(receiver);
            if (request != null) {
                return request;
            }
        }
        return null;
    }

    void finished(InstanceId worker, long kvBlocks) {
        Own counts = own.get(worker);
        if (counts != null) {
            counts.finished(kvBlocks);
        }
    }

    /** {@code worker} reported its load (it registered or updated its registration). */
    void reported(WorkerInstance worker) {
        baselines.put(worker.id(), own.computeIfAbsent(worker.id(), id -> new Own())
                .others(reportedSequences(worker), reportedBlocks(worker)));
    }

    void forget(InstanceId worker) {
        own.remove(worker);
        baselines.remove(worker);
        prefilling.remove(worker);
    }

    /** Sequences on {@code worker}: this gateway's live count plus other gateways' share of its latest report. */
    public long sequences(WorkerInstance worker) {
        Baseline baseline = baselines.get(worker.id());
        Own counts = own.get(worker.id());
        long mine = counts == null ? 0 : counts.sequences();
        return baseline == null ? Math.max(reportedSequences(worker), mine) : mine + baseline.otherSequences();
    }

    /** KV blocks held for running sequences on {@code worker}, counted like {@link #sequences}. */
    public long activeBlocks(WorkerInstance worker) {
        Baseline baseline = baselines.get(worker.id());
        Own counts = own.get(worker.id());
        long mine = counts == null ? 0 : counts.blocks();
        return baseline == null ? Math.max(reportedBlocks(worker), mine) : mine + baseline.otherBlocks();
    }

    private static long reportedSequences(WorkerInstance worker) {
        return (long) worker.load().activeSequences() + worker.load().queuedSequences();
    }

    private static long reportedBlocks(WorkerInstance worker) {
        return (long) worker.load().totalKvBlocks() - worker.load().freeKvBlocks();
    }
}
