package io.squall.functions.worker.kv;

import io.squall.kvgrid.KvEvent;

import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries batches of KV events from the scheduler thread to a slow consumer (the Hazelcast block
 * directory, whose updates are remote calls) on a thread of its own. {@link #accept} never blocks: when
 * the bounded queue is full the batch is dropped and counted, and consumers see the gap in the event
 * ids and ask for a snapshot.
 */
public final class KvEventRelay implements KvEventSink, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(KvEventRelay.class);
    private static final List<KvEvent> STOP = List.of();

    private final BlockingQueue<List<KvEvent>> queue;
    private final Consumer<List<KvEvent>> target;
    private final Thread thread;
    private final AtomicLong dropped = new AtomicLong();

    /** @param capacity batches queued at most */
    public KvEventRelay(Consumer<List<KvEvent>> target, int capacity) {
        this.target = target;
        this.queue = new ArrayBlockingQueue<>(capacity);
        this.thread = Thread.ofPlatform().name("squall-kv-events").daemon(true).start(this::drain);
    }

    @Override
    public void accept(List<KvEvent> batch) {
        if (!batch.isEmpty() && !queue.offer(batch)) {
            long total = dropped.incrementAndGet();
            if (Long.bitCount(total) == 1) { // 1st, 2nd, 4th, ... drop: visible without flooding the log
                LOG.warn("the KV event consumer is behind; {} batches dropped so far", total);
            }
        }
    }

    private void drain() {
        try {
            for (List<KvEvent> batch = queue.take(); batch != STOP; batch = queue.take()) {
                try {
                    target.accept(batch);
                } catch (RuntimeException e) {
                    LOG.warn("publishing " + batch.size() + " KV events failed", e);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Publishes what is queued, then stops. */
    @Override
    public void close() {
        try {
            queue.put(STOP);
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
