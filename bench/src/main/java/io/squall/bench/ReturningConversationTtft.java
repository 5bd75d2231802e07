package io.squall.bench;

import io.squall.functions.api.FinishReason;
import io.squall.functions.engine.batch.Admission;
import io.squall.functions.engine.batch.BatchConfig;
import io.squall.functions.engine.batch.BatchScheduler;
import io.squall.functions.engine.batch.GenerationRequest;
import io.squall.functions.engine.batch.KvPool;
import io.squall.functions.engine.batch.TokenSink;
import io.squall.functions.engine.model.Model;
import io.squall.functions.engine.model.Transformer;
import io.squall.functions.engine.sampling.SampledToken;
import io.squall.functions.engine.sampling.SamplingParams;
import io.squall.kernels.Kernels;
import io.squall.kvgrid.WorkerId;
import io.squall.kvgrid.metrics.KvStats;
import io.squall.kvgrid.offload.BlockStore;
import io.squall.kvgrid.offload.DiskBlockStore;
import io.squall.kvgrid.offload.HostBlockStore;
import io.squall.kvgrid.offload.OffloadConfig;
import io.squall.kvgrid.offload.OffloadPolicy;
import io.squall.kvgrid.pool.KvEventPublisher;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Time to first token of a conversation that returns after its history was evicted from G1: the
 * history's KV is recomputed (no prefix caching), found in G1, or onboarded from G2 (host memory) or
 * G3 (disk). Each trial runs conversation A's first turn, evicts A from G1 by running other
 * conversations of the same size, then times A's second turn from submission to its first token.
 *
 * <p>Usage: {@code java --add-modules jdk.incubator.vector -cp … io.squall.bench.ReturningConversationTtft
 * MODEL.gguf [historyTokens=1024] [trials=5]}; prints one line per mode (median and minimum TTFT in ms).
 */
public final class ReturningConversationTtft {

    private static final int BLOCK = 16;
    private static final int NEW_TURN = 16;

    private enum Mode { RECOMPUTE, G1_HIT, G2_HOST, G3_DISK }

    public static void main(String[] args) throws Exception {
        Path modelPath = Path.of(args[0]);
        int history = args.length > 1 ? Integer.parseInt(args[1]) : 1024;
        int trials = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        try (Model model = Model.load(modelPath); Kernels kernels = Kernels.best()) {
            System.out.printf("model %s, history %d tokens, new turn %d tokens, %s%n", model.name(), history, NEW_TURN,
                    kernels.name());
            for (Mode mode : Mode.values()) {
                double[] ttft = new double[trials];
                for (int t = 0; t < trials; t++) {
                    ttft[t] = trial(model, kernels, mode, history, 1000 + t);
                }
                Arrays.sort(ttft);
                System.out.printf("%-10s TTFT median %8.1f ms   min %8.1f ms%n", mode, ttft[trials / 2], ttft[0]);
            }
        }
    }

    private static double trial(Model model, Kernels kernels, Mode mode, int history, long seed) throws Exception {
        SplittableRandom random = new SplittableRandom(seed);
        int vocab = model.config().vocabSize();
        int historyBlocks = (history + NEW_TURN + 1) / BLOCK + 2;
        // G1 fits one conversation; with G1_HIT it fits everything so nothing is evicted.
        int g1Blocks = mode == Mode.G1_HIT ? 8 * historyBlocks : historyBlocks + 2;
        long blockBytes = model.config().kvLayout(BLOCK).blockBytes();
        OffloadConfig offload = switch (mode) {
            case G2_HOST -> new OffloadConfig(List.<BlockStore>of(new HostBlockStore(8L * historyBlocks * blockBytes, blockBytes)),
                    new OffloadPolicy(true, Integer.MAX_VALUE, false), 64, 4096);
            case G3_DISK -> new OffloadConfig(List.<BlockStore>of(new DiskBlockStore(
                    Files.createTempDirectory("squall-g3"), 8L * historyBlocks * blockBytes, blockBytes)),
                    new OffloadPolicy(false, 0, false), 64, 4096);
            default -> null;
        };
        BatchConfig config = new BatchConfig(4, 512, true, 64, mode != Mode.RECOMPUTE);
        try (KvPool kv = KvPool.create(model.config().kvLayout(BLOCK), g1Blocks, offload,
                new KvEventPublisher(new WorkerId(1), events -> { }), KvStats.NONE);
             BatchScheduler scheduler = new BatchScheduler(
                     new Transformer(model.config(), model.weights(), kernels, history + 4 * NEW_TURN + 64),
                     config, token -> false, kv)) {
            int[] first = random.ints(history, 0, vocab).toArray();
            int[] reply = run(scheduler, first, 8).get(600, TimeUnit.SECONDS);
            if (mode != Mode.G1_HIT) {
                for (int other = 0; other < 2; other++) { // evict A's blocks from G1
                    run(scheduler, random.ints(history, 0, vocab).toArray(), 1).get(600, TimeUnit.SECONDS);
                }
            }
            int[] returning = concat(concat(first, reply), random.ints(NEW_TURN, 0, vocab).toArray());
            long start = System.nanoTime();
            CompletableFuture<Long> firstToken = new CompletableFuture<>();
            submit(scheduler, returning, 1, token -> firstToken.complete(System.nanoTime()), new CompletableFuture<>());
            return (firstToken.get(600, TimeUnit.SECONDS) - start) / 1e6;
        }
    }

    private static CompletableFuture<int[]> run(BatchScheduler scheduler, int[] prompt, int maxTokens) {
        CompletableFuture<int[]> done = new CompletableFuture<>();
        List<Integer> tokens = new ArrayList<>();
        submit(scheduler, prompt, maxTokens, tokens::add, new CompletableFuture<>()).thenRun(() ->
                done.complete(tokens.stream().mapToInt(Integer::intValue).toArray()));
        return done;
    }

    private static CompletableFuture<Void> submit(BatchScheduler scheduler, int[] prompt, int maxTokens,
                                                  java.util.function.IntConsumer onToken, CompletableFuture<Void> done) {
        Admission admission = scheduler.submit(new GenerationRequest("bench", prompt, SamplingParams.greedy(), maxTokens,
                true, -1), new TokenSink() {
            @Override
            public void onToken(int token, SampledToken detail) {
                onToken.accept(token);
            }

            @Override
            public void onFinish(FinishReason reason, Usage usage) {
                done.complete(null);
            }

            @Override
            public void onError(Throwable error) {
                done.completeExceptionally(error);
            }
        }, Long.MAX_VALUE);
        if (!(admission instanceof Admission.Queued)) {
            throw new IllegalStateException("rejected: " + admission);
        }
        return done;
    }

    private static int[] concat(int[] a, int[] b) {
        int[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
