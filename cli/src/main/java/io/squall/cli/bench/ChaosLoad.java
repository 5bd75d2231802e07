package io.squall.cli.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The chaos suite's load: {@code users} clients, each a platform thread sending one streaming greedy request after
 * another, cycling through prompts whose uninterrupted output is known, and judging each answer against it. A client
 * behaves as a reconnecting client does: a request that breaks without a typed answer (connection refused or reset,
 * a stream that ends without {@code [DONE]}) is sent again, whole, until it ends or its deadline passes. Thread-safe.
 */
final class ChaosLoad {

    /** How a request ended. */
    enum Ending {
        /** Completed with exactly the uninterrupted output. */
        IDENTICAL,
        /** Completed with another output: a token lost, repeated or changed. */
        DIFFERENT,
        /** Failed with a typed error (the server's {@code error.type}). */
        TYPED_FAILURE,
        /** Neither completed nor failed with a typed error within its deadline. */
        LOST
    }

    /**
     * One request, however many times it was sent.
     *
     * @param sentNanos  when it was first sent ({@link System#nanoTime()})
     * @param endNanos   when it ended
     * @param attempts   times it was sent (more than one after broken connections)
     * @param migrations times the gateway moved it to another worker
     * @param errorType  the typed error it failed with, or null
     * @param error      the last error seen, or null
     */
    record Result(int prompt, long sentNanos, long endNanos, Ending ending, int attempts, int migrations,
                  String errorType, String error) {

        /** Whether the fault touched it: moved, resent or failed. */
        boolean disrupted() {
            return ending != Ending.IDENTICAL || attempts > 1 || migrations > 0;
        }
    }

    /** Wait between a client's attempts after a broken connection. */
    private static final Duration RECONNECT_BACKOFF = Duration.ofMillis(200);

    private final Target target;
    private final List<BenchRequest> requests;
    private final List<String> expected;
    private final Duration deadline;
    private final AtomicBoolean stopping = new AtomicBoolean();
    private final AtomicInteger ended = new AtomicInteger();
    private final List<Result> results = new ArrayList<>();
    private final List<Thread> users = new ArrayList<>();

    /**
     * @param requests the prompts, each with its output length
     * @param expected each prompt's uninterrupted output text
     * @param deadline the longest a request may take, every attempt included
     */
    ChaosLoad(Target target, List<BenchRequest> requests, List<String> expected, Duration deadline) {
        if (requests.size() != expected.size() || requests.isEmpty()) {
            throw new IllegalArgumentException("one expected output per prompt, at least one prompt");
        }
        this.target = target;
        this.requests = List.copyOf(requests);
        this.expected = List.copyOf(expected);
        this.deadline = deadline;
    }

    /** Starts {@code count} clients; client {@code i} sends prompts {@code i}, {@code i + count}, … in a cycle. */
    void start(int count) {
        for (int i = 0; i < count; i++) {
            int first = i;
            users.add(Thread.ofPlatform().name("chaos-user-" + i).start(() -> run(first, count)));
        }
    }

    private void run(int first, int step) {
        for (int k = first; !stopping.get(); k += step) {
            Result result = send(k % requests.size());
            synchronized (results) {
                results.add(result);
            }
            ended.incrementAndGet();
        }
    }

    /** One request to its end: resent after broken connections, judged against the uninterrupted output. */
    Result send(int prompt) {
        long sent = System.nanoTime();
        long due = sent + deadline.toNanos();
        for (int attempt = 1; ; attempt++) {
            Outcome outcome = target.send(requests.get(prompt));
            long now = System.nanoTime();
            int migrations = Math.max(0, outcome.served().migrations());
            if (now - due > 0) {
                return new Result(prompt, sent, now, Ending.LOST, attempt, migrations, null,
                        "no end within the deadline; last: " + (outcome.ok() ? "completed late" : outcome.error()));
            }
            if (outcome.ok()) {
                boolean same = outcome.text().equals(expected.get(prompt))
                        && outcome.outputTokens() == requests.get(prompt).maxTokens();
                return new Result(prompt, sent, now, same ? Ending.IDENTICAL : Ending.DIFFERENT, attempt, migrations,
                        null, same ? null : "got " + outcome.outputTokens() + " tokens: " + abbreviate(outcome.text()));
            }
            if (outcome.errorType() != null) {
                return new Result(prompt, sent, now, Ending.TYPED_FAILURE, attempt, migrations, outcome.errorType(),
                        outcome.error());
            }
            // a broken connection: the client reconnects and sends the request again
            long wait = Math.min(RECONNECT_BACKOFF.toNanos(), due - System.nanoTime());
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
        }
    }

    /** Requests ended so far. */
    int ended() {
        return ended.get();
    }

    /** Lets every client finish its request in flight (each bounded by its deadline), then returns the results. */
    List<Result> stop() throws InterruptedException {
        stopping.set(true);
        for (Thread user : users) {
            user.join();
        }
        synchronized (results) {
            return List.copyOf(results);
        }
    }

    /** Blocks until {@code count} requests have ended or {@code limit} passed; whether they had. */
    boolean awaitEnded(int count, Duration limit) {
        long until = System.nanoTime() + limit.toNanos();
        while (ended.get() < count) {
            if (System.nanoTime() - until > 0) {
                return false;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20)); // polling a counter the clients bump
        }
        return true;
    }

    private static String abbreviate(String text) {
        return text.length() <= 80 ? text : text.substring(0, 80) + "…";
    }
}
