package io.squall.functions.worker.kv;

import io.squall.kvgrid.KvEvent;
import io.squall.kvgrid.WorkerId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/** The relay's thread: coalesced calls in queue order, counted drops, and a close that does not wait forever. */
@Timeout(60) // a guard against a hung relay thread, not a measurement
class KvEventRelayTest {

    /** A consumer whose first call waits for {@link #release}, recording every event it is handed. */
    private static final class HeldConsumer implements Consumer<List<KvEvent>> {
        final List<KvEvent> received = Collections.synchronizedList(new ArrayList<>());
        final List<Integer> callSizes = Collections.synchronizedList(new ArrayList<>());
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public void accept(List<KvEvent> events) {
            entered.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            callSizes.add(events.size());
            received.addAll(events);
        }
    }

    /** {@code count} one-event batches, alternating between two workers, each worker's ids counting from 1. */
    private static List<List<KvEvent>> batches(int count) {
        List<List<KvEvent>> batches = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            batches.add(List.of(new KvEvent.Cleared(new WorkerId(i % 2 + 1), i / 2 + 1)));
        }
        return batches;
    }

    @Test
    void batchesQueuedWhileTheConsumerIsBusyGoOutInOneCallInOrder() throws InterruptedException {
        HeldConsumer consumer = new HeldConsumer();
        List<List<KvEvent>> batches = batches(301);
        List<KvEvent> sent = new ArrayList<>();
        try (KvEventRelay relay = new KvEventRelay(consumer, 1024)) {
            relay.accept(batches.getFirst());
            consumer.entered.await(); // the thread holds the first batch in a call; the rest queue behind it
            for (List<KvEvent> batch : batches.subList(1, batches.size())) {
                relay.accept(batch);
            }
            consumer.release.countDown();
        }
        batches.forEach(sent::addAll);
        assertThat(consumer.received).containsExactlyElementsOf(sent);
        assertThat(consumer.callSizes).containsExactly(1, 300);
    }

    @Test
    void oneCallCarriesAtMostTheBoundAndABatchIsNeverSplit() throws InterruptedException {
        HeldConsumer consumer = new HeldConsumer();
        int perBatch = 1000;
        try (KvEventRelay relay = new KvEventRelay(consumer, 64)) {
            relay.accept(batches(1).getFirst());
            consumer.entered.await();
            for (int b = 0; b < 9; b++) {
                List<KvEvent> batch = new ArrayList<>();
                for (int e = 0; e < perBatch; e++) {
                    batch.add(new KvEvent.Cleared(new WorkerId(7), b * perBatch + e + 1));
                }
                relay.accept(batch);
            }
            consumer.release.countDown();
        }
        assertThat(consumer.callSizes).containsExactly(1, 4000, 4000, 1000);
        assertThat(consumer.received).hasSize(9001);
    }

    @Test
    void aFullQueueDropsAndCountsInsteadOfBlocking() throws InterruptedException {
        HeldConsumer consumer = new HeldConsumer();
        List<List<KvEvent>> batches = batches(5);
        try (KvEventRelay relay = new KvEventRelay(consumer, 2)) {
            relay.accept(batches.get(0));
            consumer.entered.await();
            batches.subList(1, 5).forEach(relay::accept); // two fit behind the one in the call
            assertThat(relay.dropped()).isEqualTo(2);
            consumer.release.countDown();
        }
        assertThat(consumer.received).hasSize(3);
    }

    @Test
    void closeGivesUpOnABacklogItCannotPublishInTimeAndCountsIt() throws InterruptedException {
        HeldConsumer consumer = new HeldConsumer(); // never released until the end: the consumer hangs
        List<List<KvEvent>> batches = batches(11);
        KvEventRelay relay = new KvEventRelay(consumer, 64, Duration.ofMillis(200));
        relay.accept(batches.get(0));
        consumer.entered.await();
        batches.subList(1, 11).forEach(relay::accept);
        relay.close(); // returns although the consumer never does
        relay.accept(batches.get(0)); // after close: dropped, counted
        consumer.release.countDown();
        assertThat(relay.dropped()).isEqualTo(11);
        assertThat(consumer.received.size()).as("only the batch in the hung call").isLessThanOrEqualTo(1);
    }
}
