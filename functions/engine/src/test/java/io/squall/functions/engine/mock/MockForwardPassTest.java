package io.squall.functions.engine.mock;

import io.squall.functions.engine.batch.Admission;
import io.squall.functions.engine.batch.BatchConfig;
import io.squall.functions.engine.batch.BatchScheduler;
import io.squall.functions.engine.batch.BatchStats;
import io.squall.functions.engine.batch.GenerationRequest;
import io.squall.functions.engine.batch.KvPool;
import io.squall.functions.api.FinishReason;
import io.squall.functions.engine.batch.TokenSink;
import io.squall.functions.engine.model.ForwardPass;
import io.squall.functions.engine.model.PagedKvCache;
import io.squall.functions.engine.sampling.SampledToken;
import io.squall.functions.engine.sampling.SamplingParams;
import io.squall.functions.engine.tokenizer.Vocabulary;
import io.squall.kvgrid.KvEvent;
import io.squall.kvgrid.WorkerId;
import io.squall.kvgrid.metrics.KvStats;
import io.squall.kvgrid.pool.KvEventPublisher;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The mock pass under the real scheduler and block pool: what a mock worker runs. */
class MockForwardPassTest {

    /** 1 ms a step, whatever its size: fast, the durations are not what these tests check. */
    private static final StepTimingModel QUICK = new StepTimingModel(new int[] {1}, new double[] {0.001}, 0, 0);

    @TempDir
    static Path dir;

    private static Vocabulary vocabulary;

    @BeforeAll
    static void vocabulary() {
        vocabulary = BuiltInVocabulary.read(dir);
    }

    private static final class Output implements TokenSink {
        final List<Integer> tokens = new ArrayList<>();
        final CompletableFuture<Usage> done = new CompletableFuture<>();

        @Override
        public synchronized void onToken(int token, SampledToken detail) {
            tokens.add(token);
        }

        @Override
        public void onFinish(FinishReason reason, Usage usage) {
            done.complete(usage);
        }

        @Override
        public void onError(Throwable error) {
            done.completeExceptionally(error);
        }

        synchronized int[] ids() {
            return tokens.stream().mapToInt(Integer::intValue).toArray();
        }
    }

    /** A mock worker's scheduler over a pool of {@code blocks} pages, publishing its KV events to {@code events}. */
    private static BatchScheduler worker(int blocks, ConcurrentLinkedQueue<KvEvent> events) {
        MockForwardPass pass = new MockForwardPass(QUICK, MockTokens.of(vocabulary), 1000, 4096);
        KvPool kv = KvPool.create(pass.kvLayout(16), blocks, null, new KvEventPublisher(new WorkerId(1), events::addAll),
                KvStats.NONE);
        return new BatchScheduler(pass, BatchConfig.defaults(), token -> false, kv);
    }

    private static Output generate(BatchScheduler scheduler, int[] prompt, int maxTokens, SamplingParams sampling)
            throws Exception {
        Output output = new Output();
        Admission admission = scheduler.submit(new GenerationRequest("t", prompt, sampling, maxTokens, false, -1), output);
        assertThat(admission).isInstanceOf(Admission.Queued.class);
        ((Admission.Queued) admission).generation().request(maxTokens);
        output.done.get(30, TimeUnit.SECONDS);
        return output;
    }

    @Test
    void aRequestGetsTheSameTokensOnAnyWorkerAndAContinuationGoesOnAsTheOriginal() throws Exception {
        long seed = System.nanoTime();
        int[] prompt = new SplittableRandom(seed).ints(70, 0, 256).toArray();
        try (BatchScheduler a = worker(256, new ConcurrentLinkedQueue<>());
             BatchScheduler b = worker(256, new ConcurrentLinkedQueue<>())) {
            int[] onA = generate(a, prompt, 40, SamplingParams.greedy()).ids();
            int[] onB = generate(b, prompt, 40, SamplingParams.greedy()).ids();
            assertThat(onA).as("seed %d", seed).hasSize(40).containsExactly(onB);
            // a migrated request: the prompt plus the first 15 tokens, on the other worker
            int[] continuation = Arrays.copyOf(prompt, prompt.length + 15);
            System.arraycopy(onA, 0, continuation, prompt.length, 15);
            assertThat(generate(b, continuation, 25, SamplingParams.greedy()).ids())
                    .containsExactly(Arrays.copyOfRange(onA, 15, 40));
            SamplingParams seeded = SamplingParams.builder().temperature(1.0).seed(42L).build();
            assertThat(generate(a, prompt, 30, seeded).ids()).containsExactly(generate(b, prompt, 30, seeded).ids());
        }
    }

    @Test
    void blocksArePagedCommittedAndReusedAsOnARealWorker() throws Exception {
        ConcurrentLinkedQueue<KvEvent> events = new ConcurrentLinkedQueue<>();
        int[] prompt = new SplittableRandom(9).ints(100, 0, 256).toArray();
        try (BatchScheduler worker = worker(64, events)) {
            TokenSink.Usage first = generate(worker, prompt, 8, SamplingParams.greedy()).done.get();
            assertThat(first.cachedTokens()).isZero();
            assertThat(events).filteredOn(e -> e instanceof KvEvent.Stored).isNotEmpty();
            TokenSink.Usage second = generate(worker, prompt, 8, SamplingParams.greedy()).done.get();
            assertThat(second.cachedTokens()).isEqualTo(96); // six full blocks of 16; the last token is recomputed
            assertThat(idle(worker).freeKvBlocks()).isEqualTo(64);
        }
    }

    /**
     * The first load snapshot with nothing running: a request's usage arrives within the step that ends it, the
     * snapshot only after that step.
     */
    private static BatchStats idle(BatchScheduler worker) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        BatchStats stats = worker.stats();
        while ((stats.running() > 0 || stats.waiting() > 0) && System.nanoTime() < deadline) {
            Thread.onSpinWait();
            stats = worker.stats();
        }
        return stats;
    }

    @Test
    void refusesSegmentsARealPassWouldRefuse() {
        MockForwardPass pass = new MockForwardPass(QUICK, MockTokens.of(vocabulary), 1, 8);
        KvPool kv = KvPool.create(pass.kvLayout(4), 8, null, new KvEventPublisher(new WorkerId(1), e -> { }), KvStats.NONE);
        PagedKvCache cache = new PagedKvCache(kv.pool(),
                kv.hasher(), 8);
        assertThatThrownBy(() -> pass.forward(List.of(new ForwardPass.Segment(cache,
                new int[] {1, vocabulary.size()}, 0, 2, null)))).hasMessageContaining("outside the vocabulary");
        assertThatThrownBy(() -> pass.forward(List.of(new ForwardPass.Segment(cache,
                new int[9], 0, 9, null)))).hasMessageContaining("exceeds the context");
        assertThat(cache.length()).isZero();
        kv.close();
    }
}
