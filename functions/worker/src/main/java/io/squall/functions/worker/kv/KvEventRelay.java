package io.squall.functions.worker.kv;

import io.squall.kvgrid.KvEvent;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries batches of KV events from the scheduler threads to a slow consumer (the Hazelcast block
 * directory and event topic, whose updates are remote calls) on a thread of its own. {@link #accept} never
 * blocks: when the bounded queue is full the batch is dropped and counted, and consumers see the gap in the
 * event ids and ask for a snapshot.
 *
 * <p>The thread hands the consumer everything queued since its last call as one list, in queue order (so each
 * worker's events stay in id order), up to {@value #MAX_EVENTS_PER_CALL} events a call: many workers in one
 * process (a {@code squall serve} of 16 mock workers) produce batches faster than one remote call each can
 * carry, and a call per batch fell behind and dropped thousands.
 */
public final class KvEventRelay implements KvEventSink, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(KvEventRelay.class);
    private static final List<KvEvent> STOP = List.of();
    /** Events one consumer call carries at most, so a backlog goes out in bounded messages. */
    static final int MAX_EVENTS_PER_CALL = 4096;
    /** How long {@link #close} keeps publishing a backlog; what is left then is dropped (consumers repair it). */
    static final Duration CLOSE_BUDGET = Duration.ofSeconds(5);

    private final Duration closeBudget;
    private final BlockingQueue<List<KvEvent>> queue;
    private final Consumer<List<KvEvent>> target;
    private final Thread thread;
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong calls = new AtomicLong();
    /** Set by {@link #close}, after {@link #closeDeadline}. */
    private volatile boolean closing;
    /** {@link System#nanoTime} after which a closing relay stops publishing. */
    private volatile long closeDeadline;

    /** @param capacity batches queued at most */
    public KvEventRelay(Consumer<List<KvEvent>> target, int capacity) {
        this(target, capacity, CLOSE_BUDGET);
    }

    KvEventRelay(Consumer<List<KvEvent>> target, int capacity, Duration closeBudget) {
        this.target = target;
        this.closeBudget = closeBudget;
        this.queue = new ArrayBlockingQueue<>(capacity);
        this.thread = Thread.ofPlatform().name("squall-kv-events").daemon(true).start(this::drain);
    }

    @Override
    public void accept(List<KvEvent> batch) {
        if (!batch.isEmpty() && (closing || !queue.offer(batch))) {
            dropped(1);
        }
    }

    /** Batches dropped so far: the queue was full, or {@link #close} ran out of time. */
    public long dropped() {
        return dropped.get();
    }

    /** Calls made to the consumer so far. */
    long calls() {
        return calls.get();
    }

    private void dropped(long batches) {
        long before = dropped.getAndAdd(batches);
        if (Long.highestOneBit(before) != Long.highestOneBit(before + batches)) { // each power of two passed: visible, not flooding
            LOG.warn("the KV event consumer is behind; {} batches dropped so far", before + batches);
        }
    }

    private void drain() {
        List<List<KvEvent>> pending = new ArrayList<>();
        try {
            boolean stopping = false;
            while (!stopping) {
                pending.add(queue.take());
                queue.drainTo(pending);
                stopping = publish(pending);
                pending.clear();
            }
        } catch (InterruptedException e) { // close gave up waiting: what is queued will not be published
            dropQueued();
            Thread.currentThread().interrupt();
        }
    }

    /** Publishes {@code batches} in as few calls as the size bound allows; true once the stop marker is among them. */
    private boolean publish(List<List<KvEvent>> batches) {
        List<KvEvent> call = new ArrayList<>();
        for (int i = 0; i < batches.size(); i++) {
            List<KvEvent> batch = batches.get(i);
            boolean outOfTime = closing && System.nanoTime() - closeDeadline > 0;
            if (batch == STOP || outOfTime) {
                if (!outOfTime) {
                    send(call);
                }
                dropped(unpublished(batches, batch == STOP ? i + 1 : i));
                dropQueued();
                return true;
            }
            if (!call.isEmpty() && call.size() + batch.size() > MAX_EVENTS_PER_CALL) {
                send(call);
                call = new ArrayList<>();
            }
            call.addAll(batch);
        }
        send(call);
        return false;
    }

    /** Batches of {@code batches} from {@code from} on, without the stop marker. */
    private static long unpublished(List<List<KvEvent>> batches, int from) {
        long count = 0;
        for (int i = from; i < batches.size(); i++) {
            count += batches.get(i) == STOP ? 0 : 1;
        }
        return count;
    }

    /** Empties the queue and counts what it held as dropped (drainTo takes each batch once, whoever calls). */
    private void dropQueued() {
        List<List<KvEvent>> left = new ArrayList<>();
        queue.drainTo(left);
        dropped(unpublished(left, 0));
    }

    private void send(List<KvEvent> events) {
        if (events.isEmpty()) {
            return;
        }
        calls.incrementAndGet();
        try {
            target.accept(events);
        } catch (RuntimeException e) {
            LOG.warn("publishing " + events.size() + " KV events failed", e);
        }
    }

    /**
     * Publishes what is queued for at most {@link #CLOSE_BUDGET}, drops the rest (counted), then stops. Batches
     * accepted after this call are dropped too.
     */
    @Override
    public void close() {
        closeDeadline = System.nanoTime() + closeBudget.toNanos();
        closing = true;
        try {
            if (!queue.offer(STOP, closeBudget.toNanos(), TimeUnit.NANOSECONDS)) {
                thread.interrupt();
            }
            thread.join(closeBudget.multipliedBy(2).toMillis());
            if (thread.isAlive()) { // a consumer call that does not return: leave the daemon thread behind
                LOG.warn("the KV event consumer did not return within {}; leaving it", closeBudget.multipliedBy(2));
                dropQueued();
                thread.interrupt();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
