package io.squall.cli.bench;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs a {@link Workload} against a {@link Target}: at most {@code concurrency} requests at once (one platform
 * thread per user conversation, which reads its response itself: a virtual thread is woken through the JDK's
 * poller and then a carrier thread, two hops that on a loaded machine delayed every timed event), optionally started as a Poisson process of {@code rate} conversations per
 * second. A conversation's turns run in order, each resending the history including the replies so far.
 */
public final class LoadGenerator {

    private final Target target;
    private final int concurrency;
    private final double rate;
    private final long seed;

    /**
     * @param concurrency most requests in flight, at least 1
     * @param rate        conversations started per second, or 0 to start them as fast as concurrency allows
     */
    public LoadGenerator(Target target, int concurrency, double rate, long seed) {
        if (concurrency < 1 || rate < 0) {
            throw new IllegalArgumentException("concurrency must be >= 1 and rate >= 0");
        }
        this.target = target;
        this.concurrency = concurrency;
        this.rate = rate;
        this.seed = seed;
    }

    /** Runs every request; returns the outcomes and the wall-clock time taken. */
    public Report.Run run(Workload workload) throws InterruptedException {
        Semaphore slots = new Semaphore(concurrency);
        Random arrivals = new Random(seed);
        List<Report.Result> results = java.util.Collections.synchronizedList(new ArrayList<>());
        long start = System.nanoTime();
        try (ExecutorService users = Executors.newThreadPerTaskExecutor(Thread.ofPlatform().name("bench-user-", 0).factory())) {
            List<Future<?>> running = new ArrayList<>();
            long next = start;
            for (List<Workload.Turn> conversation : workload.conversations()) {
                if (rate > 0) {
                    next += (long) (-Math.log(1 - arrivals.nextDouble()) / rate * 1e9);
                    while (System.nanoTime() < next) {
                        LockSupport.parkNanos(next - System.nanoTime());
                    }
                }
                slots.acquire();
                running.add(users.submit(() -> {
                    try {
                        converse(conversation, results, start);
                    } finally {
                        slots.release();
                    }
                }));
            }
            for (Future<?> future : running) {
                try {
                    future.get();
                } catch (java.util.concurrent.ExecutionException e) {
                    throw new IllegalStateException("a simulated user failed", e.getCause());
                }
            }
        }
        return new Report.Run(List.copyOf(results), System.nanoTime() - start);
    }

    private void converse(List<Workload.Turn> turns, List<Report.Result> results, long start) {
        List<Map<String, String>> history = new ArrayList<>();
        for (Workload.Turn turn : turns) {
            if (history.isEmpty() && turn.system() != null) {
                history.add(message("system", turn.system()));
            }
            history.add(message("user", turn.user()));
            BenchRequest request = new BenchRequest(history, turn.maxTokens());
            long sent = System.nanoTime() - start;
            Outcome outcome = target.send(request);
            results.add(new Report.Result(request, sent, 0, outcome));
            if (!outcome.ok()) {
                return;
            }
            history.add(message("assistant", outcome.text()));
        }
    }

    private static Map<String, String> message(String role, String content) {
        Map<String, String> message = new HashMap<>();
        message.put("role", role);
        message.put("content", content);
        return message;
    }

    /**
     * Tokens per synthetic word on {@code target}, measured with a probe prompt of 64 words: short enough for a
     * small model's context (64 words are ~250 tokens with stories260K's 512-token vocabulary), long enough that the
     * chat template's own tokens do not dominate.
     */
    public static double tokensPerWord(Target target, long seed) {
        int words = 64;
        String text = Workload.words(new Random(seed), words);
        int base = target.promptTokens(new BenchRequest(List.of(message("user", "x")), 1));
        int probe = target.promptTokens(new BenchRequest(List.of(message("user", text)), 1));
        return Math.max(0.1, (probe - base + 1) / (double) words);
    }
}
