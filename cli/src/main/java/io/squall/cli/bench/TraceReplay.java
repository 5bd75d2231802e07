package io.squall.cli.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;

/**
 * Replays timed requests open-loop: request {@code i} is sent at its timestamp divided by {@code timeScale}, whether
 * or not earlier ones have finished, so a server that falls behind sees its queue grow as it would in production
 * (a closed loop would slow the arrivals down instead). Each request is read on a platform thread of its own (see
 * {@link LoadGenerator} for why not a virtual one). How late the sender itself dispatched each request is recorded,
 * so an overloaded load generator shows up in the report instead of passing as server latency.
 */
public final class TraceReplay {

    /** When each request is due and what it is. */
    public interface Schedule {
        int size();

        /** Request {@code index}'s arrival, in ms from the start of the trace; non-decreasing in the index. */
        long atMillis(int index);

        /** Arrivals at {@code millis} (not copied: the caller must not change them). */
        static Schedule of(long... millis) {
            return new Schedule() {
                @Override
                public int size() {
                    return millis.length;
                }

                @Override
                public long atMillis(int index) {
                    return millis[index];
                }
            };
        }
    }

    private final Target target;
    private final double timeScale;
    private final CacheCeiling ceiling;

    /**
     * @param timeScale how much faster than the trace's clock to send: the speedup times the rate scale, &gt; 0
     * @param kvBlockSize tokens per KV block, for the cache oracle, which sees each prompt as it is sent
     */
    public TraceReplay(Target target, double timeScale, int kvBlockSize) {
        if (!(timeScale > 0) || Double.isInfinite(timeScale)) {
            throw new IllegalArgumentException("the replay's time scale must be positive, got " + timeScale);
        }
        this.target = target;
        this.timeScale = timeScale;
        this.ceiling = new CacheCeiling(kvBlockSize);
    }

    /**
     * Sends every request of {@code schedule} at its time; {@code requests} makes request {@code i}, a token prompt,
     * when it is due (so a long trace's prompts never sit in memory all at once).
     */
    public Report.Run run(Schedule schedule, IntFunction<BenchRequest> requests) throws InterruptedException {
        List<Report.Result> results = Collections.synchronizedList(new ArrayList<>());
        long start = System.nanoTime();
        try (ExecutorService senders = Executors.newThreadPerTaskExecutor(
                Thread.ofPlatform().name("bench-trace-", 0).daemon(true).factory())) {
            List<Future<?>> sent = new ArrayList<>();
            for (int i = 0; i < schedule.size(); i++) {
                long due = start + Math.round(schedule.atMillis(i) * 1e6 / timeScale);
                for (long wait = due - System.nanoTime(); wait > 0; wait = due - System.nanoTime()) {
                    LockSupport.parkNanos(wait);
                }
                BenchRequest request = requests.apply(i);
                int best = ceiling.offer(request.prompt());
                long dueAt = due;
                long dispatched = System.nanoTime() - start; // in dispatch order, which is the oracle's
                sent.add(senders.submit(() -> {
                    long lag = System.nanoTime() - dueAt;
                    Outcome outcome = target.send(request);
                    // the prompt is not kept: a long trace's prompts would not fit in memory together
                    results.add(new Report.Result(null, dispatched, lag, outcome, best));
                }));
            }
            for (Future<?> future : sent) {
                try {
                    future.get();
                } catch (java.util.concurrent.ExecutionException e) {
                    throw new IllegalStateException("a replayed request failed in the load generator", e.getCause());
                }
            }
        }
        List<Report.Result> ordered = new ArrayList<>(results);
        ordered.sort(Comparator.comparingLong(Report.Result::sentNanos));
        return new Report.Run(ordered, System.nanoTime() - start);
    }
}
