package io.squall.kvgrid.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.KvEvent;
import io.squall.kvgrid.WorkerId;
import io.squall.kvgrid.index.flat.FlatRadixIndex;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Many producers offer events (each owning some workers, so per-worker order holds) while readers
 * look prompts up; afterwards the indexer's state must equal applying every producer's events
 * sequentially, and readers must only have seen well-formed answers.
 */
class KvIndexerStressTest {

    private static final int PRODUCERS = 4;
    private static final int READERS = 2;
    private static final int WORKERS_PER_PRODUCER = 16;
    private static final int EVENTS_PER_PRODUCER = 50_000;
    private static final int DOCUMENTS = 200;

    @Test
    void concurrentStateEqualsSequentialApplication() throws Exception {
        long seed = System.nanoTime();
        System.out.println("KvIndexerStressTest seed=" + seed);
        AtomicInteger gaps = new AtomicInteger();
        // Small queues so producers regularly hit backpressure.
        KvIndexer indexer = new KvIndexer(new FlatRadixIndex(), new KvIndexer.Config(512, 64, 64), gap -> gaps.incrementAndGet());
        List<List<KvEvent>> produced = new ArrayList<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicBoolean producing = new AtomicBoolean(true);
        AtomicInteger lookups = new AtomicInteger();
        CountDownLatch producersDone = new CountDownLatch(PRODUCERS);
        List<Thread> threads = new ArrayList<>();

        for (int p = 0; p < PRODUCERS; p++) {
            List<KvEvent> log = new ArrayList<>(EVENTS_PER_PRODUCER);
            produced.add(log);
            RandomEvents events = new RandomEvents(seed, new Random(seed + 1 + p), WORKERS_PER_PRODUCER, DOCUMENTS);
            int firstWorker = p * WORKERS_PER_PRODUCER;
            long pickSeed = seed - p;
            threads.add(Thread.ofPlatform().start(guard(failure, () -> {
                Random pick = new Random(pickSeed);
                for (int i = 0; i < EVENTS_PER_PRODUCER; i++) {
                    KvEvent event = events.next(new WorkerId(firstWorker + pick.nextInt(WORKERS_PER_PRODUCER)));
                    log.add(event);
                    while (!indexer.offer(event)) {
                        Thread.onSpinWait();
                    }
                }
                producersDone.countDown();
            })));
        }
        for (int r = 0; r < READERS; r++) {
            RandomEvents prompts = new RandomEvents(seed, new Random(seed * 31 + r), 1, DOCUMENTS);
            threads.add(Thread.ofPlatform().start(guard(failure, () -> {
                while (producing.get()) {
                    BlockHash[] prompt = prompts.prompt();
                    indexer.findMatches(prompt)
                            .exceptionally(e -> OverlapScores.none(prompt.length)) // a full query queue is allowed
                            .thenAccept(scores -> {
                                assertThat(scores.promptBlocks()).isEqualTo(prompt.length);
                                lookups.incrementAndGet();
                            })
                            .get(10, TimeUnit.SECONDS);
                }
            })));
        }

        assertThat(producersDone.await(120, TimeUnit.SECONDS)).as("producers finished (seed %d)", seed).isTrue();
        producing.set(false);
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        }
        assertThat(failure.get()).as("seed %d", seed).isNull();

        ReferenceRadixIndex sequential = new ReferenceRadixIndex();
        int sequentialGaps = 0;
        for (List<KvEvent> log : produced) {
            for (KvEvent event : log) {
                if (sequential.apply(event) instanceof ApplyOutcome.Gap) {
                    sequentialGaps++;
                }
            }
        }
        for (WorkerId worker : sequential.workers()) {
            WorkerSnapshot expected = sequential.dump(worker);
            WorkerSnapshot actual = indexer.dump(worker).get(30, TimeUnit.SECONDS); // ordered after every event
            assertThat(actual.lastEventId()).as("worker %s (seed %d)", worker, seed).isEqualTo(expected.lastEventId());
            assertThat(new HashSet<>(actual.events())).as("worker %s (seed %d)", worker, seed).isEqualTo(new HashSet<>(expected.events()));
        }
        RandomEvents prompts = new RandomEvents(seed, new Random(seed), 1, DOCUMENTS);
        for (int i = 0; i < 2_000; i++) {
            BlockHash[] prompt = prompts.prompt();
            assertThat(indexer.findMatches(prompt).get(10, TimeUnit.SECONDS)).as("seed %d", seed).isEqualTo(sequential.findMatches(prompt));
        }
        assertThat(gaps.get()).as("seed %d", seed).isEqualTo(sequentialGaps);
        assertThat(lookups.get()).isPositive();
        indexer.close();
    }

    private interface Body {
        void run() throws Exception;
    }

    private static Runnable guard(AtomicReference<Throwable> failure, Body body) {
        return () -> {
            try {
                body.run();
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            }
        };
    }
}
