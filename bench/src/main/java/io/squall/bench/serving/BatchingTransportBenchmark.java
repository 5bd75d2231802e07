package io.squall.bench.serving;

import io.rsocket.RSocket;
import io.squall.functions.api.GenerateRequest;
import io.squall.functions.api.GenerateService;
import io.squall.functions.api.SamplingOptions;
import io.squall.functions.api.TokenChunk;
import io.squall.functions.api.rsocket.RSocketGenerateClient;
import io.squall.functions.api.rsocket.StageConnections;
import io.squall.functions.engine.batch.BatchConfig;
import io.squall.functions.engine.batch.BatchScheduler;
import io.squall.functions.engine.batch.KvPool;
import io.squall.kvgrid.WorkerId;
import io.squall.kvgrid.metrics.KvStats;
import io.squall.kvgrid.pool.KvEventPublisher;
import io.squall.functions.engine.model.Model;
import io.squall.functions.engine.model.Transformer;
import io.squall.functions.worker.local.SchedulerGenerateService;
import io.squall.functions.worker.rsocket.StageResponder;
import io.squall.functions.worker.rsocket.StageServices;
import io.squall.kernels.Kernels;
import io.rsocket.SocketAcceptor;
import io.rsocket.core.RSocketServer;
import io.rsocket.frame.decoder.PayloadDecoder;
import io.rsocket.transport.netty.server.CloseableChannel;
import io.rsocket.transport.netty.server.TcpServerTransport;
import reactor.core.publisher.Flux;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Continuous batching and transport, on one model file: (1) aggregate decode tokens/s at several
 * concurrencies, in process; (2) inter-token latency of running streams while a long prompt arrives,
 * chunked prefill on and off; (3) tokens/s through RSocket over loopback TCP against in process.
 *
 * <p>Usage: {@code java ... BatchingTransportBenchmark MODEL.gguf [outputTokens=128] [longPrompt=2000]}.
 * Prints one line per measurement. Random prompts (fixed seed), greedy decoding, end-of-generation ignored.
 */
public final class BatchingTransportBenchmark {

    /** Prompt tokens per stream in the throughput and transport runs (llama-batched-bench's -npp 128). */
    private static final int PROMPT = 128;
    /** Prompt tokens of the streams already running when the long prompt arrives. */
    private static final int RUNNING_PROMPT = 16;

    private BatchingTransportBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        int outputTokens = args.length > 1 ? Integer.parseInt(args[1]) : 128;
        int longPrompt = args.length > 2 ? Integer.parseInt(args[2]) : 2000;
        try (Model model = Model.load(file); Kernels kernels = Kernels.best()) {
            System.out.printf("model %s, kernels %s%n", model.name(), kernels.name());
            throughput(model, kernels, outputTokens);
            interTokenLatency(model, kernels, longPrompt, true);
            interTokenLatency(model, kernels, longPrompt, false);
            transport(model, kernels, outputTokens);
        }
    }

    /** A scheduler with its own KV pool of 4,096 blocks; closing it frees both. */
    private record Engine(BatchScheduler scheduler, KvPool kv) implements AutoCloseable {
        @Override
        public void close() {
            scheduler.close();
            kv.close();
        }
    }

    private static Engine engine(Model model, Kernels kernels, int positions, boolean chunked) {
        BatchConfig config = new BatchConfig(64, 512, chunked, 1024, true);
        KvPool kv = KvPool.create(model.config().kvLayout(16), 4096, null, new KvEventPublisher(new WorkerId(1), events -> { }),
                KvStats.NONE);
        return new Engine(new BatchScheduler(new Transformer(model.config(), model.weights(), kernels, positions), config,
                t -> false, kv), kv);
    }

    private static void throughput(Model model, Kernels kernels, int outputTokens) {
        try (Engine engine = engine(model, kernels, PROMPT + outputTokens + 1, true)) {
            BatchScheduler scheduler = engine.scheduler();
            GenerateService service = new SchedulerGenerateService(scheduler);
            run(service, 1, outputTokens, model); // warm-up: the batch-1 (decode) and batched matmul paths
            run(service, 2, outputTokens, model);
            for (int concurrency : new int[] {1, 4, 16, 32}) {
                Rate rate = run(service, concurrency, outputTokens, model);
                System.out.printf(Locale.ROOT, "in-process concurrency=%d decode tokens/s=%.1f end-to-end tokens/s=%.1f%n",
                        concurrency, rate.decode(), rate.endToEnd());
            }
        }
    }

    /**
     * Tokens per second of one run: {@code decode} counts the tokens generated after every stream has its
     * first token, over the time since then (the decode phase alone, like llama-batched-bench's S_TG);
     * {@code endToEnd} counts all tokens over the whole wall time, prompts included.
     */
    private record Rate(double decode, double endToEnd) {
    }

    /** Runs {@code concurrency} streams to completion. */
    private static Rate run(GenerateService service, int concurrency, int outputTokens, Model model) {
        SplittableRandom random = new SplittableRandom(concurrency);
        AtomicInteger started = new AtomicInteger();
        AtomicLong decodeStart = new AtomicLong();
        AtomicLong decodeTokens = new AtomicLong();
        List<Flux<TokenChunk>> streams = new ArrayList<>();
        for (int i = 0; i < concurrency; i++) {
            boolean[] first = {true};
            streams.add(service.generate(request("s" + i, prompt(random, PROMPT, model), outputTokens))
                    .doOnNext(chunk -> {
                        int n = chunk.tokenIds().length;
                        if (first[0] && n > 0) {
                            first[0] = false;
                            n--;
                            if (started.incrementAndGet() == concurrency) {
                                decodeStart.set(System.nanoTime());
                                return;
                            }
                        }
                        if (decodeStart.get() != 0) {
                            decodeTokens.addAndGet(n);
                        }
                    }));
        }
        long start = System.nanoTime();
        long tokens = Flux.merge(Flux.fromIterable(streams), streams.size())
                .map(c -> (long) c.tokenIds().length)
                .reduce(0L, Long::sum)
                .block(Duration.ofMinutes(10));
        long end = System.nanoTime();
        return new Rate(decodeTokens.get() / ((end - decodeStart.get()) / 1e9), tokens / ((end - start) / 1e9));
    }

    private static void interTokenLatency(Model model, Kernels kernels, int longPrompt, boolean chunked) {
        try (Engine engine = engine(model, kernels, longPrompt + 64, chunked)) {
            BatchScheduler scheduler = engine.scheduler();
            GenerateService service = new SchedulerGenerateService(scheduler);
            SplittableRandom random = new SplittableRandom(7);
            AtomicBoolean measuring = new AtomicBoolean();
            List<Long> gaps = Collections.synchronizedList(new ArrayList<>());
            int running = 4;
            List<Flux<TokenChunk>> streams = new ArrayList<>();
            for (int i = 0; i < running; i++) {
                long[] last = {0};
                streams.add(service.generate(request("r" + i, prompt(random, RUNNING_PROMPT, model), 1_000))
                        .doOnNext(c -> {
                            long now = System.nanoTime();
                            if (measuring.get() && last[0] != 0) {
                                gaps.add(now - last[0]);
                            }
                            last[0] = now;
                        }));
            }
            var runningStreams = Flux.merge(Flux.fromIterable(streams), streams.size()).subscribe();
            // let the running streams reach steady decode before the long prompt arrives
            long warm = System.nanoTime();
            while (scheduler.stats().generatedTokens() < running * 8L) {
                Thread.onSpinWait();
            }
            measuring.set(true);
            long arrival = System.nanoTime();
            long firstToken = service.generate(request("long", prompt(random, longPrompt, model), 1))
                    .map(c -> System.nanoTime())
                    .blockFirst(Duration.ofMinutes(10));
            // keep measuring a few steps after the long prompt's first token
            long after = scheduler.stats().generatedTokens();
            while (scheduler.stats().generatedTokens() < after + running * 4L) {
                Thread.onSpinWait();
            }
            measuring.set(false);
            runningStreams.dispose();
            long[] sorted = gaps.stream().mapToLong(Long::longValue).sorted().toArray();
            System.out.printf(Locale.ROOT,
                    "itl while a %d-token prompt arrives chunkedPrefill=%s gaps=%d p50_ms=%.1f p99_ms=%.1f max_ms=%.1f long_prompt_ttft_s=%.2f warmup_s=%.1f%n",
                    longPrompt, chunked, sorted.length, percentile(sorted, 0.50), percentile(sorted, 0.99),
                    sorted.length == 0 ? 0 : sorted[sorted.length - 1] / 1e6, (firstToken - arrival) / 1e9,
                    (arrival - warm) / 1e9);
        }
    }

    private static void transport(Model model, Kernels kernels, int outputTokens) {
        int concurrency = 8;
        try (Engine engine = engine(model, kernels, PROMPT + outputTokens + 1, true)) {
            BatchScheduler scheduler = engine.scheduler();
            GenerateService local = new SchedulerGenerateService(scheduler);
            CloseableChannel server = RSocketServer.create(SocketAcceptor.with(new StageResponder(
                    () -> new StageServices(local, request -> Flux.empty(), null, null))))
                    .payloadDecoder(PayloadDecoder.ZERO_COPY)
                    .bind(TcpServerTransport.create("127.0.0.1", 0))
                    .block(Duration.ofSeconds(10));
            RSocket rsocket = StageConnections.tcp("127.0.0.1", server.address().getPort()).block(Duration.ofSeconds(10));
            GenerateService remote = new RSocketGenerateClient(rsocket);
            try {
                run(local, 2, outputTokens, model);
                run(remote, 2, outputTokens, model);
                int rounds = 5;
                double[][] inProcess = new double[2][rounds];
                double[][] overRSocket = new double[2][rounds];
                for (int round = 0; round < rounds; round++) { // interleaved, so drift hits both alike
                    Rate local1 = run(local, concurrency, outputTokens, model);
                    Rate remote1 = run(remote, concurrency, outputTokens, model);
                    inProcess[0][round] = local1.decode();
                    inProcess[1][round] = local1.endToEnd();
                    overRSocket[0][round] = remote1.decode();
                    overRSocket[1][round] = remote1.endToEnd();
                }
                String[] kinds = {"decode", "end-to-end"};
                for (int kind = 0; kind < 2; kind++) {
                    double a = median(inProcess[kind]);
                    double b = median(overRSocket[kind]);
                    System.out.printf(Locale.ROOT,
                            "transport concurrency=%d %s in-process tokens/s=%.1f rsocket-tcp tokens/s=%.1f ratio=%.3f (medians of %d)%n",
                            concurrency, kinds[kind], a, b, b / a, rounds);
                }
            } finally {
                rsocket.dispose();
                server.dispose();
            }
        }
    }

    private static GenerateRequest request(String id, int[] prompt, int maxTokens) {
        return new GenerateRequest(id, prompt, SamplingOptions.greedy(), maxTokens, true, -1);
    }

    private static int[] prompt(SplittableRandom random, int length, Model model) {
        int vocab = model.config().vocabSize();
        int[] tokens = new int[length];
        for (int i = 0; i < length; i++) {
            tokens[i] = 1 + random.nextInt(vocab - 1);
        }
        return tokens;
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static double percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)] / 1e6;
    }
}
