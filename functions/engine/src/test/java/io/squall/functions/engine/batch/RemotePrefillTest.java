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
import io.squall.kvgrid.WorkerId;
import io.squall.kvgrid.metrics.KvStats;
import io.squall.kvgrid.pool.KvEventPublisher;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A prompt's KV computed by one scheduler ("prefill worker"), reported block by block through
 * {@link TokenSink#onPromptBlock} and written into pages another scheduler ("decode worker") reserved
 * through {@link RemotePrefill}: same tokens as unbatched generation, and only the tail is computed on
 * the decode side; a failed transfer is recomputed.
 */
class RemotePrefillTest {

    private static final int BLOCK = 16;

    @TempDir
    static Path dir;

    private static Model model;
    /** The decode side's and the reference's kernels. */
    private static Kernels kernels;
    /** The prefill side's: a kernel pool runs one forward pass at a time, and both sides run at once. */
    private static Kernels prefillKernels;

    @BeforeAll
    static void load() {
        Path file = dir.resolve("model.gguf");
        RandomModel.write(new RandomModel.Spec(Architecture.LLAMA,
                new RandomModel.Shape(64, 2, 4, 2, 128, 512), GgmlType.F32, null, 13), file);
        model = Model.load(file);
        kernels = Kernels.best();
        prefillKernels = Kernels.best();
    }

    @AfterAll
    static void close() {
        prefillKernels.close();
        kernels.close();
        model.close();
    }

    private static BatchScheduler scheduler(int blocks, Kernels kernelPool) {
        KvPool pool = KvPool.create(model.config().kvLayout(BLOCK), blocks, null,
                new KvEventPublisher(new WorkerId(1), events -> { }), KvStats.NONE);
        return new BatchScheduler(new Transformer(model.config(), model.weights(), kernelPool, 512),
                new BatchConfig(4, 32, true, 16, true), token -> false, pool);
    }

    private static int[] unbatched(int[] prompt, int maxTokens) {
        return new Generator(new Transformer(model.config(), model.weights(), kernels, 512), 64)
                .generate(prompt, new Sampler(SamplingParams.greedy(), model.config().vocabSize()), maxTokens,
                        token -> false, token -> { })
                .tokens();
    }

    /** Runs the prompt on {@code prefill} and writes its blocks into the target; {@code blocksToWrite} &lt; all tears it. */
    private record PushingRemote(BatchScheduler prefill, int blocksToWrite) implements RemotePrefill {
        @Override
        public boolean wanted(GenerationRequest request, int uncachedTokens) {
            return true;
        }

        @Override
        public CompletableFuture<Boolean> start(PrefillTarget target) {
            CompletableFuture<Boolean> filled = new CompletableFuture<>();
            int last = target.firstBlock() + Math.min(blocksToWrite, target.blockIds().length) - 1;
            TokenSink pusher = new Collector() {
                @Override
                public void onPromptBlock(int index, BlockHash hash, MemorySegment page) {
                    if (index >= target.firstBlock() && index <= last) {
                        target.write(index, hash, page.toArray(ValueLayout.JAVA_BYTE));
                    }
                    if (index == last) {
                        filled.complete(last == target.firstBlock() + target.blockIds().length - 1);
                    }
                }
            };
            GenerationRequest request = target.request();
            Admission admission = prefill.submit(new GenerationRequest(request.id(), request.prompt(), request.sampling(),
                    1, true, -1), pusher);
            ((Admission.Queued) admission).generation().request(1);
            return filled;
        }
    }

    private static class Collector implements TokenSink {
        final List<Integer> tokens = Collections.synchronizedList(new ArrayList<>());
        final CompletableFuture<FinishReason> done = new CompletableFuture<>();

        @Override
        public void onToken(int token, SampledToken detail) {
            tokens.add(token);
        }

        @Override
        public void onFinish(FinishReason reason, Usage usage) {
            done.complete(reason);
        }

        @Override
        public void onError(Throwable error) {
            done.completeExceptionally(error);
        }
    }

    private static List<Integer> generate(BatchScheduler decode, int[] prompt, RemotePrefill remote) throws Exception {
        Collector out = new Collector();
        Admission admission = decode.submit(new GenerationRequest("r", prompt, SamplingParams.greedy(), 6, true, -1), out,
                remote, 6);
        assertThat(admission).isInstanceOf(Admission.Queued.class);
        out.done.get(60, TimeUnit.SECONDS);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (decode.stats().running() > 0) { // stats are published after the step that finished it
            assertThat(System.nanoTime()).isLessThan(deadline);
            Thread.onSpinWait();
        }
        return out.tokens;
    }

    @Test
    void pushedBlocksAreUsedAndOnlyTheTailIsComputedLocally() throws Exception {
        long seed = System.nanoTime();
        System.out.println("RemotePrefillTest seed " + seed);
        SplittableRandom random = new SplittableRandom(seed);
        try (BatchScheduler prefill = scheduler(64, prefillKernels); BatchScheduler decode = scheduler(64, kernels)) {
            for (int length : new int[] {5 * BLOCK, 5 * BLOCK + 7, BLOCK + 1}) {
                int[] prompt = random.ints(length, 0, 256).toArray();
                long computedBefore = decode.stats().promptTokensComputed();

                List<Integer> tokens = generate(decode, prompt, new PushingRemote(prefill, Integer.MAX_VALUE));

                assertThat(tokens).containsExactlyElementsOf(boxed(unbatched(prompt, 6)));
                int pushed = (length - 1) / BLOCK * BLOCK;
                assertThat(decode.stats().promptTokensComputed() - computedBefore).isEqualTo(length - pushed);
            }
        }
    }

    @Test
    void aTornTransferIsRecomputedWithTheSameTokensAndNoPageLeak() throws Exception {
        int[] prompt = new SplittableRandom(7).ints(4 * BLOCK + 3, 0, 256).toArray();
        try (BatchScheduler prefill = scheduler(64, prefillKernels); BatchScheduler decode = scheduler(64, kernels)) {
            int freeAtStart = decode.stats().freeKvBlocks();

            List<Integer> tokens = generate(decode, prompt, new PushingRemote(prefill, 2));

            assertThat(tokens).containsExactlyElementsOf(boxed(unbatched(prompt, 6)));
            assertThat(decode.stats().promptTokensComputed()).isEqualTo(prompt.length);
            assertThat(decode.stats().freeKvBlocks()).isEqualTo(freeAtStart);
        }
    }

    @Test
    void reservedPagesRefuseMismatchingBlocksAndAnyWriteAfterClose() {
        KvPool pool = KvPool.create(model.config().kvLayout(BLOCK), 4, null,
                new KvEventPublisher(new WorkerId(1), events -> { }), KvStats.NONE);
        try (pool) {
            int bytes = (int) pool.pool().layout().blockBytes();
            GenerationRequest request = new GenerationRequest("r", new int[] {1, 2, 3}, SamplingParams.greedy(), 1, false, -1);
            ReservedPages pages = new ReservedPages(request, 1, new int[] {2, 3},
                    List.of(new BlockHash(11), new BlockHash(12)), pool.pool());

            assertThatThrownBy(() -> pages.write(0, new BlockHash(11), new byte[bytes])).hasMessageContaining("not reserved");
            assertThatThrownBy(() -> pages.write(1, new BlockHash(12), new byte[bytes])).hasMessageContaining("expected");
            assertThatThrownBy(() -> pages.write(1, new BlockHash(11), new byte[bytes - 1])).hasMessageContaining("bytes");
            assertThat(pages.write(1, new BlockHash(11), new byte[bytes])).isTrue();
            assertThat(pages.close()).as("one of two pages written").isFalse();
            assertThat(pages.write(2, new BlockHash(12), new byte[bytes])).isFalse();
        }
    }

    private static List<Integer> boxed(int[] values) {
        return Arrays.stream(values).boxed().toList();
    }
}
