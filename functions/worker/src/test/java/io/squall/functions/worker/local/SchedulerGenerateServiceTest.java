package io.squall.functions.worker.local;

import io.squall.functions.api.ErrorCode;
import io.squall.functions.api.FinishReason;
import io.squall.functions.api.GenerateRequest;
import io.squall.functions.api.SamplingOptions;
import io.squall.functions.api.StageException;
import io.squall.functions.api.TokenChunk;
import io.squall.functions.engine.batch.BatchConfig;
import io.squall.functions.engine.batch.BatchScheduler;
import io.squall.functions.engine.batch.KvPool;
import io.squall.functions.engine.generate.Generator;
import io.squall.functions.engine.model.Architecture;
import io.squall.functions.engine.model.Model;
import io.squall.functions.engine.model.RandomModel;
import io.squall.functions.engine.model.Transformer;
import io.squall.functions.engine.sampling.Sampler;
import io.squall.functions.engine.sampling.SamplingParams;
import io.squall.kernels.GgmlType;
import io.squall.kernels.Kernels;
import io.squall.kvgrid.WorkerId;
import io.squall.kvgrid.metrics.KvStats;
import io.squall.kvgrid.pool.KvEventPublisher;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.test.StepVerifier;

import java.nio.file.Path;
import java.time.Duration;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class SchedulerGenerateServiceTest {

    @TempDir
    static Path dir;

    private static Model model;
    private static Kernels kernels;
    private static KvPool kv;
    private static BatchScheduler scheduler;
    private static SchedulerGenerateService service;

    @BeforeAll
    static void start() {
        Path file = dir.resolve("m.gguf");
        RandomModel.write(new RandomModel.Spec(Architecture.QWEN2, new RandomModel.Shape(64, 2, 4, 2, 96, 256),
                GgmlType.Q8_0, null, 5), file);
        model = Model.load(file);
        kernels = Kernels.best();
        kv = KvPool.create(model.config().kvLayout(16), 256, null, new KvEventPublisher(new WorkerId(1), events -> { }),
                KvStats.NONE);
        scheduler = new BatchScheduler(new Transformer(model.config(), model.weights(), kernels, 256),
                BatchConfig.defaults(), token -> false, kv);
        service = new SchedulerGenerateService(scheduler);
    }

    @AfterAll
    static void stop() {
        scheduler.close();
        kv.close();
        kernels.close();
        model.close();
    }

    private static GenerateRequest request(int[] prompt, int maxTokens) {
        return new GenerateRequest("t", prompt, SamplingOptions.greedy(), maxTokens, true, -1);
    }

    @Test
    void streamsTheTokensOfInProcessGenerationOneRequestAtATime() {
        int[] prompt = {5, 17, 42, 99};
        int[] expected = new Generator(new Transformer(model.config(), model.weights(), kernels, 256), 64)
                .generate(prompt, new Sampler(SamplingParams.greedy(), model.config().vocabSize()), 6, t -> false, t -> { })
                .tokens();
        StepVerifier.FirstStep<TokenChunk> verifier = StepVerifier.create(service.generate(request(prompt, 6)), 0);
        StepVerifier.Step<TokenChunk> step = verifier.thenRequest(1);
        for (int i = 0; i < 6; i++) {
            int expectedToken = expected[i];
            step = step.assertNext(chunk -> assertThat(chunk.tokenIds()).containsExactly(expectedToken));
            step = step.thenRequest(1);
        }
        step.assertNext(chunk -> {
                    assertThat(chunk.finishReason()).isEqualTo(FinishReason.LENGTH);
                    assertThat(chunk.usage().completionTokens()).isEqualTo(6);
                    assertThat(chunk.usage().promptTokens()).isEqualTo(4);
                })
                .expectComplete()
                .verify(Duration.ofSeconds(30));
    }

    @Test
    void aPromptIsComputedWholeInTheStepThatYieldsItsFirstToken() {
        int[] prompt = new SplittableRandom(8).ints(29, 0, model.config().vocabSize()).toArray();
        try (KvPool pool = KvPool.create(model.config().kvLayout(16), 64, null,
                new KvEventPublisher(new WorkerId(2), events -> { }), KvStats.NONE);
             BatchScheduler own = new BatchScheduler(new Transformer(model.config(), model.weights(), kernels, 256),
                     BatchConfig.defaults(), token -> false, pool)) {
            // demand comes after subscribing: submitted before it, the prompt's last token could go to another step
            StepVerifier.create(new SchedulerGenerateService(own).generate(request(prompt, 1)), 0)
                    .thenRequest(2)
                    .assertNext(chunk -> assertThat(chunk.tokenIds()).hasSize(1))
                    .assertNext(chunk -> assertThat(chunk.finishReason()).isEqualTo(FinishReason.LENGTH))
                    .expectComplete()
                    .verify(Duration.ofSeconds(30));
            while (own.stats().generatedTokens() == 0) {
                Thread.onSpinWait(); // stats are published after the step
            }
            assertThat(own.stats().steps()).as("forward passes").isEqualTo(1);
            assertThat(own.stats().lastStepTokens()).isEqualTo(prompt.length);
        }
    }

    @Test
    void cancellingTheSubscriptionFreesTheBlocks() {
        StepVerifier.create(service.generate(request(new int[100], 150)), 2)
                .expectNextCount(2)
                .thenCancel()
                .verify(Duration.ofSeconds(30));
        while (scheduler.stats().freeKvBlocks() != scheduler.stats().totalKvBlocks()) {
            Thread.onSpinWait(); // freed at the scheduler's next step
        }
        assertThat(scheduler.stats().running()).isZero();
    }

    @Test
    void invalidRequestsAreTypedErrors() {
        StepVerifier.create(service.generate(request(new int[] {1, 1_000_000}, 3)))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOfSatisfying(StageException.class,
                        s -> assertThat(s.code()).isEqualTo(ErrorCode.INVALID_REQUEST)))
                .verify(Duration.ofSeconds(10));
        StepVerifier.create(service.generate(request(new int[0], 3)))
                .expectErrorSatisfies(e -> assertThat(((StageException) e).getMessage()).contains("empty"))
                .verify(Duration.ofSeconds(10));
    }
}
