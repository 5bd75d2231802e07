package io.squall.functions.engine.batch;

import io.squall.functions.api.FinishReason;
import io.squall.functions.engine.generate.Generator;
import io.squall.functions.engine.model.Architecture;
import io.squall.functions.engine.model.Model;
import io.squall.functions.engine.model.RandomModel;
import io.squall.functions.engine.model.Transformer;
import io.squall.functions.engine.sampling.SampledToken;
import io.squall.functions.engine.sampling.Sampler;
import io.squall.functions.engine.sampling.SamplingParams;
import io.squall.kernels.GgmlType;
import io.squall.kernels.Kernels;
import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.KvEvent;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.WorkerId;
import io.squall.kvgrid.metrics.KvStats;
import io.squall.kvgrid.pool.KvEventPublisher;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class BatchSchedulerTest {

    private static final int END = 258; // end of generation in the built-in vocabulary

    @TempDir
    static Path dir;

    private static Model model;
    private static Kernels kernels;

    @BeforeAll
    static void load() {
        Path file = dir.resolve("model.gguf");
        RandomModel.write(new RandomModel.Spec(Architecture.LLAMA,
                new RandomModel.Shape(64, 2, 4, 2, 128, 512), GgmlType.F32, null, 11), file);
        model = Model.load(file);
        kernels = Kernels.best();
    }

    @AfterAll
    static void close() {
        kernels.close();
        model.close();
    }

    /** Collects a sequence's output; completes when it finishes. */
    private static final class Collector implements TokenSink {
        final List<Integer> tokens = Collections.synchronizedList(new ArrayList<>());
        final CompletableFuture<FinishReason> done = new CompletableFuture<>();
        final AtomicLong granted = new AtomicLong();
        volatile Usage usage;
        volatile boolean overDelivered;

        @Override
        public void onToken(int token, SampledToken detail) {
            tokens.add(token);
            if (tokens.size() > granted.get()) {
                overDelivered = true;
            }
        }

        @Override
        public void onFinish(FinishReason reason, Usage usage) {
            this.usage = usage;
            done.complete(reason);
        }

        @Override
        public void onError(Throwable error) {
            done.completeExceptionally(error);
        }

        void request(Generation generation, long n) {
            granted.addAndGet(n);
            generation.request(n);
        }
    }

    private static KvPool pool(int blocks) {
        return KvPool.create(model.config().kvLayout(16), blocks, null,
                new KvEventPublisher(new WorkerId(1), events -> { }), KvStats.NONE);
    }

    private Transformer transformer() {
        return new Transformer(model.config(), model.weights(), kernels, 512);
    }

    private int[] unbatched(int[] prompt, int maxTokens) {
        Generator generator = new Generator(transformer(), 64);
        return generator.generate(prompt, new Sampler(SamplingParams.greedy(), model.config().vocabSize()), maxTokens,
                token -> token == END, token -> { }).tokens();
    }

    private static Generation queued(Admission admission) {
        assertThat(admission).isInstanceOf(Admission.Queued.class);
        return ((Admission.Queued) admission).generation();
    }

    private static GenerationRequest greedy(String id, int[] prompt, int maxTokens) {
        return new GenerationRequest(id, prompt, SamplingParams.greedy(), maxTokens, false, -1);
    }

    @Test
    void batchedSequencesProduceTheTokensOfUnbatchedGenerationWhateverTheArrivalOrder() throws Exception {
        long seed = System.nanoTime();
        SplittableRandom random = new SplittableRandom(seed);
        int count = 12;
        List<int[]> prompts = new ArrayList<>();
        List<int[]> expected = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int[] prompt = random.ints(1 + random.nextInt(90), 0, 256).toArray();
            prompts.add(prompt);
            expected.add(unbatched(prompt, 24));
        }
        // A small token budget forces chunked prefill beside decodes; few blocks force preemption.
        BatchConfig config = new BatchConfig(6, 40, true, 64, true);
        try (KvPool kv = pool(16);
             BatchScheduler scheduler = new BatchScheduler(transformer(), config, token -> token == END, kv)) {
            List<Collector> collectors = new ArrayList<>();
            List<Integer> order = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                order.add(i);
            }
            Collections.shuffle(order, new java.util.Random(seed));
            for (int i = 0; i < count; i++) {
                collectors.add(null);
            }
            for (int i : order) {
                Collector collector = new Collector();
                collectors.set(i, collector);
                Generation generation = queued(scheduler.submit(greedy("s" + i, prompts.get(i), 24), collector));
                collector.request(generation, Long.MAX_VALUE / 2);
            }
            for (int i = 0; i < count; i++) {
                collectors.get(i).done.get(60, TimeUnit.SECONDS);
                assertThat(collectors.get(i).tokens).as("sequence %d (seed %d)", i, seed)
                        .containsExactly(java.util.Arrays.stream(expected.get(i)).boxed().toArray(Integer[]::new));
            }
            assertThat(scheduler.stats().preemptions()).as("the pool is small enough to force preemption").isPositive();
            while (scheduler.stats().freeKvBlocks() != 16) {
                Thread.onSpinWait(); // stats are published after the step that finished the last sequence
            }
        }
    }

    @Test
    void eventsRecordedOffTheSchedulerThreadArePublishedWhileIdle() {
        Queue<KvEvent> published = new ConcurrentLinkedQueue<>();
        try (KvPool kv = KvPool.create(model.config().kvLayout(16), 8, null,
                new KvEventPublisher(new WorkerId(1), published::addAll), KvStats.NONE);
             BatchScheduler scheduler = new BatchScheduler(transformer(), BatchConfig.defaults(), token -> false, kv)) {
            // as the offload thread does after writing an evicted block to a lower tier, with no step to come
            kv.events().removed(List.of(new BlockHash(42)), Tier.G2);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (published.isEmpty()) {
                assertThat(System.nanoTime()).as("published within 10 s while idle").isLessThan(deadline);
                Thread.onSpinWait();
            }
            assertThat(published).singleElement().isInstanceOfSatisfying(KvEvent.Removed.class,
                    removed -> assertThat(removed.hashes()).containsExactly(new BlockHash(42)));
            assertThat(scheduler.stats().running()).isZero();
        }
    }

    @Test
    void deliversNoMoreTokensThanRequested() throws Exception {
        try (KvPool kv = pool(64);
             BatchScheduler scheduler = new BatchScheduler(transformer(), BatchConfig.defaults(), token -> false, kv)) {
            Collector collector = new Collector();
            Generation generation = queued(scheduler.submit(
                    new GenerationRequest("bp", new int[] {1, 2, 3}, SamplingParams.greedy(), 20, true, -1), collector));
            for (int i = 0; i < 20; i++) {
                int expected = i + 1;
                collector.request(generation, 1);
                // Wait for exactly the granted token: the scheduler must stop there until more demand comes.
                while (collector.tokens.size() < expected && !collector.done.isDone()) {
                    Thread.onSpinWait();
                }
                assertThat(collector.tokens).hasSize(expected);
            }
            assertThat(collector.done.get(10, TimeUnit.SECONDS)).isEqualTo(FinishReason.LENGTH);
            assertThat(collector.overDelivered).isFalse();
            assertThat(collector.usage.completionTokens()).isEqualTo(20);
        }
    }

    @Test
    void aPromptSubmittedWithDemandIsComputedInOneStepWhereOneWithoutLeavesItsLastTokenForDemand() throws Exception {
        try (KvPool kv = pool(64);
             BatchScheduler scheduler = new BatchScheduler(transformer(), BatchConfig.defaults(), token -> false, kv)) {
            Collector late = new Collector();
            Generation generation = queued(scheduler.submit(greedy("late", new SplittableRandom(3).ints(37, 0, 256)
                    .toArray(), 1), late));
            while (scheduler.stats().steps() == 0) {
                Thread.onSpinWait(); // the scheduler runs what it may before any demand
            }
            assertThat(scheduler.stats().lastStepTokens()).as("all but the token whose output nobody asked for yet")
                    .isEqualTo(36);
            late.request(generation, 1);
            assertThat(late.done.get(10, TimeUnit.SECONDS)).isEqualTo(FinishReason.LENGTH);
            awaitGenerated(scheduler, 1);
            assertThat(scheduler.stats().steps()).isEqualTo(2);
            assertThat(scheduler.stats().lastStepTokens()).isEqualTo(1);

            Collector upFront = new Collector();
            upFront.granted.set(1);
            queued(scheduler.submit(greedy("up-front", new SplittableRandom(4).ints(37, 0, 256).toArray(), 1),
                    upFront, 1));
            assertThat(upFront.done.get(10, TimeUnit.SECONDS)).isEqualTo(FinishReason.LENGTH);
            awaitGenerated(scheduler, 2);
            assertThat(scheduler.stats().steps()).as("the whole prompt in one step").isEqualTo(3);
            assertThat(scheduler.stats().lastStepTokens()).isEqualTo(37);
            assertThat(upFront.overDelivered).isFalse();
        }
    }

    /** Waits for the stats of the step that emitted the {@code tokens}-th token: they are published after it. */
    private static void awaitGenerated(BatchScheduler scheduler, long tokens) {
        while (scheduler.stats().generatedTokens() < tokens) {
            Thread.onSpinWait();
        }
    }

    @Test
    void cancellationEndsTheSequenceAndFreesItsBlocks() throws Exception {
        try (KvPool kv = pool(64);
             BatchScheduler scheduler = new BatchScheduler(transformer(), BatchConfig.defaults(), token -> false, kv)) {
            Collector collector = new Collector();
            Generation generation = queued(scheduler.submit(
                    new GenerationRequest("c", new int[100], SamplingParams.greedy(), 400, true, -1), collector));
            collector.request(generation, 3);
            while (collector.tokens.size() < 3) {
                Thread.onSpinWait();
            }
            assertThat(scheduler.stats().freeKvBlocks()).isLessThan(64);
            generation.cancel();
            assertThat(collector.done.get(10, TimeUnit.SECONDS)).isEqualTo(FinishReason.CANCELLED);
            // Stats are published after the step that reaped the sequence.
            while (scheduler.stats().freeKvBlocks() != 64) {
                Thread.onSpinWait();
            }
            assertThat(collector.tokens).hasSize(3);
        }
    }

    @Test
    void rejectsWhatCanNeverRunAndWhatDoesNotFitTheQueue() {
        BatchConfig config = new BatchConfig(1, 64, true, 1, true);
        try (KvPool kv = pool(8);
             BatchScheduler scheduler = new BatchScheduler(transformer(), config, token -> false, kv)) {
            assertThat(scheduler.maxSequenceTokens()).as("8 blocks of 16 tokens, fewer than the 512 positions")
                    .isEqualTo(128);
            Admission tooLong = scheduler.submit(greedy("long", new int[600], 4), new Collector());
            assertThat(tooLong).isInstanceOfSatisfying(Admission.Rejected.class, r -> {
                assertThat(r.reason()).contains("600 tokens").contains("at most 128 tokens");
                assertThat(r.overloaded()).isFalse();
            });
            Admission tooManyBlocks = scheduler.submit(greedy("blocks", new int[128], 4), new Collector());
            assertThat(tooManyBlocks).as("the pool, not the positions, bounds this worker")
                    .isInstanceOfSatisfying(Admission.Rejected.class, r -> assertThat(r.reason()).contains("at most 128 tokens"));
            assertThat(scheduler.submit(greedy("fits", new int[127], 4), new Collector()))
                    .isInstanceOf(Admission.Queued.class);
            Admission badToken = scheduler.submit(greedy("tok", new int[] {1, 99999}, 4), new Collector());
            assertThat(badToken).isInstanceOfSatisfying(Admission.Rejected.class,
                    r -> assertThat(r.reason()).contains("99999"));
        }
    }
}
