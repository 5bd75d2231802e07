package io.squall.kvgrid.grid;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.topic.ITopic;
import com.hazelcast.topic.Message;
import com.hazelcast.topic.ReliableMessageListener;
import io.squall.kvgrid.KvEvent;

import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * Workers' KV event batches, cluster-wide: a Hazelcast reliable topic (a bounded ring buffer with
 * backups) that every router follows. A subscriber starts at the oldest batch still in the ring, so a
 * router that joins late replays recent history; one that falls further behind than the ring holds
 * skips ahead, and the workers' event ids show it the gap (repaired with
 * {@link BlockDirectory#snapshot}). Publishing blocks on a remote call: call it off the scheduler thread.
 */
public final class KvEventTopic {

    /** The topic's name; {@link GridMembers#config} sizes its ring buffer. */
    public static final String NAME = "squall-kv-events";

    private final ITopic<KvEventBatch> topic;

    public KvEventTopic(HazelcastInstance member) {
        this.topic = Objects.requireNonNull(member, "member").getReliableTopic(NAME);
    }

    /** Publishes one batch (of any workers' events, each worker's in order). */
    public void publish(List<KvEvent> batch) {
        if (!batch.isEmpty()) {
            topic.publish(new KvEventBatch(batch));
        }
    }

    /**
     * Delivers every batch published from now on, and those still in the ring buffer, to {@code listener}, in
     * publication order, on one Hazelcast thread. Closing the returned handle stops delivery.
     */
    public AutoCloseable subscribe(Consumer<List<KvEvent>> listener) {
        Objects.requireNonNull(listener, "listener");
        UUID registration = topic.addMessageListener(new ReliableMessageListener<KvEventBatch>() {
            @Override
            public void onMessage(Message<KvEventBatch> message) {
                listener.accept(message.getMessageObject().events());
            }

            @Override
            public long retrieveInitialSequence() {
                return 0; // the oldest batch still held: a late router replays what it can
            }

            @Override
            public void storeSequence(long sequence) {
            }

            @Override
            public boolean isLossTolerant() {
                return true; // lost batches show up as event-id gaps, which the router repairs
            }

            @Override
            public boolean isTerminal(Throwable failure) {
                return false;
            }
        });
        return () -> topic.removeMessageListener(registration);
    }
}
