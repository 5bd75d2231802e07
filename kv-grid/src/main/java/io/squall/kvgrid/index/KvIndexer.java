package io.squall.kvgrid.index;

import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.KvEvent;
import io.squall.kvgrid.WorkerId;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thread-safe front of a {@link RadixIndex}: one dedicated thread owns the index (an actor), so
 * the index itself needs no locks and its hot paths stay plain array code. Any thread may call.
 *
 * <p>Why an actor rather than a lock-free index: events mutate several structures at once (node
 * table, per-worker reverse sets, slot bookkeeping) and open-addressing deletion moves entries, so a
 * lock-free version would need copy-on-write or per-slot versioning on every path; a single writer
 * applying events in batches reaches the throughput target with none of that, and lookups, which
 * are short (one probe per prompt block), are answered by the same thread between batches.
 *
 * <p>Two bounded queues feed the thread. Events and the state-changing commands ({@link #dump},
 * {@link #replace}, {@link #removeWorker}) share the <b>event queue</b>, so commands take effect in
 * order with the events offered before them. Lookups go to the <b>query queue</b>, which the thread
 * serves before every batch of at most {@link Config#maxBatch()} events, so a lookup waits for at
 * most one batch however long the event backlog is; a lookup may therefore not yet reflect events
 * still queued. Nothing is unbounded: a full event queue makes {@link #offer} return {@code false}
 * (the caller slows down or retries), and a full queue fails the returned future with {@link
 * RejectedExecutionException}.
 *
 * <p>{@link ApplyOutcome.Gap}s are passed to the gap listener on the indexer thread: it must return
 * quickly (typically by asking the worker for a snapshot and later calling {@link #replace}).
 * Stale events are dropped silently.
 */
public final class KvIndexer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(KvIndexer.class);
    /**
     * Events are applied in groups of this many, each group {@link RadixIndex#prefetch prefetched}
     * first in a tight loop so that the cache misses of the whole group overlap.
     */
    private static final int PREFETCH_GROUP = 8;

    /**
     * Queue sizes of an indexer.
     *
     * @param eventCapacity events and commands that may wait (at least 1)
     * @param queryCapacity lookups that may wait (at least 1)
     * @param maxBatch events applied between two visits of the query queue (at least 1)
     */
    public record Config(int eventCapacity, int queryCapacity, int maxBatch) {

        /** 64k events, 1k queries, batches of 256 events. */
        public static final Config DEFAULT = new Config(65_536, 1_024, 256);

        public Config {
            if (eventCapacity < 1 || queryCapacity < 1 || maxBatch < 1) {
                throw new IllegalArgumentException("indexer queue capacities and batch size must be positive");
            }
        }
    }

    private final RadixIndex index;
    private final Consumer<ApplyOutcome.Gap> onGap;
    private final int maxBatch;
    private final ArrayBlockingQueue<Object> events;
    private final ArrayBlockingQueue<Query> queries;
    private final Thread thread;
    private volatile boolean parked;
    private volatile boolean closed;

    /**
     * Starts the indexer thread, which from now on owns {@code index}: nobody else may touch it.
     *
     * @param onGap called on the indexer thread for each event gap
     */
    public KvIndexer(RadixIndex index, Config config, Consumer<ApplyOutcome.Gap> onGap) {
        this.index = Objects.requireNonNull(index, "index");
        this.onGap = Objects.requireNonNull(onGap, "onGap");
        this.maxBatch = config.maxBatch();
        this.events = new ArrayBlockingQueue<>(config.eventCapacity());
        this.queries = new ArrayBlockingQueue<>(config.queryCapacity());
        this.thread = Thread.ofPlatform().name("kv-indexer").daemon().unstarted(this::run);
        thread.start();
    }

    /**
     * Queues an event; returns {@code false}, without queueing it, when the event queue is full.
     *
     * @throws IllegalStateException after {@link #close()}
     */
    public boolean offer(KvEvent event) {
        Objects.requireNonNull(event, "event");
        return enqueue(events, event);
    }

    /** Looks up {@code prompt} (chained block hashes) on the indexer thread; see {@link RadixIndex#findMatches}. */
    public CompletableFuture<OverlapScores> findMatches(BlockHash[] prompt) {
        Query query = new Query(Objects.requireNonNull(prompt, "prompt").clone(), new CompletableFuture<>());
        if (!enqueue(queries, query)) {
            return CompletableFuture.failedFuture(new RejectedExecutionException("index query queue is full"));
        }
        return query.result;
    }

    /** The worker's snapshot, taken after every event offered before this call. */
    public CompletableFuture<WorkerSnapshot> dump(WorkerId worker) {
        Objects.requireNonNull(worker, "worker");
        return command(index -> index.dump(worker));
    }

    /** Replaces a worker's state, after every event offered before this call. */
    public CompletableFuture<Void> replace(WorkerSnapshot snapshot) {
        Objects.requireNonNull(snapshot, "snapshot");
        return command(index -> {
            index.replace(snapshot);
            return null;
        });
    }

    /** Forgets a worker that left, after every event offered before this call. */
    public CompletableFuture<Void> removeWorker(WorkerId worker) {
        Objects.requireNonNull(worker, "worker");
        return command(index -> {
            index.removeWorker(worker);
            return null;
        });
    }

    /** Stops the thread after it finishes its current batch; queued work is failed. Idempotent. */
    @Override
    public void close() {
        closed = true;
        LockSupport.unpark(thread);
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        failPending();
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Fails whatever is still queued once the thread has stopped; safe to call from any thread, repeatedly. */
    private void failPending() {
        IllegalStateException failure = new IllegalStateException("indexer is closed");
        for (Object pending; (pending = events.poll()) != null; ) {
            if (pending instanceof Command<?> command) {
                command.result.completeExceptionally(failure);
            }
        }
        for (Query query; (query = queries.poll()) != null; ) {
            query.result.completeExceptionally(failure);
        }
    }

    private <T> CompletableFuture<T> command(java.util.function.Function<RadixIndex, T> action) {
        Command<T> command = new Command<>(action, new CompletableFuture<>());
        if (!enqueue(events, command)) {
            return CompletableFuture.failedFuture(new RejectedExecutionException("index event queue is full"));
        }
        return command.result;
    }

    private <T> boolean enqueue(ArrayBlockingQueue<T> queue, T item) {
        if (closed) {
            throw new IllegalStateException("indexer is closed");
        }
        if (!queue.offer(item)) {
            return false;
        }
        if (closed && !thread.isAlive()) {
            failPending(); // close() raced with this offer and has already drained the queues
            return true;
        }
        // Pairs with run(): the thread publishes `parked` before re-checking the queues.
        if (parked) {
            LockSupport.unpark(thread);
        }
        return true;
    }

    private void run() {
        List<Object> batch = new ArrayList<>(maxBatch);
        while (!closed) {
            boolean worked = answerQueries();
            if (events.drainTo(batch, maxBatch) > 0) {
                for (int start = 0; start < batch.size(); start += PREFETCH_GROUP) {
                    int end = Math.min(batch.size(), start + PREFETCH_GROUP);
                    for (int i = start; i < end; i++) {
                        prefetch(batch.get(i));
                    }
                    for (int i = start; i < end; i++) {
                        handle(batch.get(i));
                    }
                }
                batch.clear();
                worked = true;
            }
            if (!worked) {
                parked = true;
                if (events.isEmpty() && queries.isEmpty() && !closed) {
                    LockSupport.park(this);
                }
                parked = false;
            }
        }
    }

    private boolean answerQueries() {
        boolean any = false;
        for (Query query; (query = queries.poll()) != null; ) {
            any = true;
            try {
                query.result.complete(index.findMatches(query.prompt));
            } catch (RuntimeException e) {
                query.result.completeExceptionally(e);
            }
        }
        return any;
    }

    private void prefetch(Object item) {
        if (item instanceof KvEvent event) {
            index.prefetch(event);
        }
    }

    private void handle(Object item) {
        switch (item) {
            case KvEvent event -> {
                try {
                    if (index.apply(event) instanceof ApplyOutcome.Gap gap) {
                        onGap.accept(gap);
                    }
                } catch (RuntimeException e) {
                    LOG.warn("dropped a KV event the index could not apply: " + event, e);
                }
            }
            case Command<?> command -> command.run(index);
            default -> throw new IllegalStateException("unexpected item in the event queue: " + item.getClass());
        }
    }

    private record Query(BlockHash[] prompt, CompletableFuture<OverlapScores> result) {}

    private record Command<T>(java.util.function.Function<RadixIndex, T> action, CompletableFuture<T> result) {
        void run(RadixIndex index) {
            try {
                result.complete(action.apply(index));
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        }
    }
}
