package io.squall.functions.worker;

import com.hazelcast.core.HazelcastInstance;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.SocketAcceptor;
import io.rsocket.core.RSocketServer;
import io.rsocket.transport.netty.server.CloseableChannel;
import io.rsocket.transport.netty.server.TcpServerTransport;
import io.squall.functions.api.GenerateRequest;
import io.squall.functions.api.KvBlockFrame;
import io.squall.functions.api.KvPushHeader;
import io.squall.functions.api.PrefillRequest;
import io.squall.functions.api.SamplingOptions;
import io.squall.functions.api.codec.WireFormat;
import io.squall.functions.discovery.InstanceId;
import io.squall.functions.discovery.LoadReport;
import io.squall.functions.discovery.Registration;
import io.squall.functions.discovery.ServedModel;
import io.squall.functions.discovery.WorkerInstance;
import io.squall.functions.discovery.WorkerRole;
import io.squall.functions.discovery.hazelcast.DiscoveryConfig;
import io.squall.functions.discovery.hazelcast.HazelcastDiscovery;
import io.squall.functions.api.rsocket.RSocketErrors;
import io.squall.functions.api.rsocket.RSocketGenerateClient;
import io.squall.functions.api.rsocket.RSocketKvPushClient;
import io.squall.functions.api.rsocket.RSocketPrefillClient;
import io.squall.functions.api.rsocket.StageConnections;
import io.squall.functions.engine.batch.BatchConfig;
import io.squall.functions.engine.model.Architecture;
import io.squall.functions.engine.model.RandomModel;
import io.squall.functions.worker.disagg.DisaggregationConfig;
import io.squall.functions.worker.kv.KvConfig;
import io.squall.functions.worker.micronaut.WorkerApplication;
import io.squall.kernels.GgmlType;
import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.grid.GridConfig;
import io.squall.kvgrid.grid.GridMembers;
import io.squall.kvgrid.hash.BlockHasher;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.squall.functions.worker.ItSupport.awaitTrue;
import static io.squall.functions.worker.ItSupport.freePort;
import static io.squall.functions.worker.ItSupport.concat;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Disaggregated prefill with real parts: Hazelcast discovery, RSocket over loopback TCP, workers on a
 * random-weight GGUF model. Cluster one holds an aggregated worker (the reference), a prefill worker and
 * a decode worker; cluster two a decode worker whose only "prefill worker" is a scripted fake that
 * breaks the transfer in a chosen way.
 */
class DisaggregatedPrefillIT {

    private static final Logger LOG = LoggerFactory.getLogger(DisaggregatedPrefillIT.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    /** 48-token steps: a 10-block prompt takes several chunks, so blocks are pushed while later ones compute. */
    private static final BatchConfig BATCH = new BatchConfig(4, 48, true, 16, true);
    private static final int BLOCK = 16;
    private static final KvConfig KV = KvConfig.inMemory(128);
    /** Prompts with more than two blocks' worth of uncached tokens go to a prefill worker. */
    private static final DisaggregationConfig DISAGG = new DisaggregationConfig(2 * BLOCK, 4, TIMEOUT);
    private static final int OUTPUT = 8;
    /** layers · K|V · slots · kvHeads · headDim · F32 bytes. */
    private static final int BLOCK_BYTES = 2 * 2 * BLOCK * 2 * 16 * Float.BYTES;
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    static Path dir;

    private static SplittableRandom random;
    private static Cluster one;
    private static Cluster two;
    private static WorkerApplication aggregated;
    private static WorkerApplication prefill;
    private static WorkerApplication decode;
    private static WorkerApplication lonelyDecode;

    private record Cluster(HazelcastInstance member, HazelcastDiscovery discovery) implements AutoCloseable {
        static Cluster start(String name) {
            int port = freePort();
            HazelcastInstance member = GridMembers.start(new GridConfig(name + "-" + port, "127.0.0.1", port,
                    List.of("127.0.0.1:" + port), 1, 1000));
            return new Cluster(member, new HazelcastDiscovery(member, DiscoveryConfig.defaults()));
        }

        WorkerApplication worker(WorkerRole role, Path model) {
            return WorkerApplication.start(WorkerConfig.loopback(role, BATCH, KV).withDisaggregation(DISAGG),
                    ModelSource.file(model), discovery.discovery());
        }

        @Override
        public void close() {
            discovery.close();
            member.getLifecycleService().terminate();
        }
    }

    @BeforeAll
    static void start() throws Exception {
        long seed = System.nanoTime();
        LOG.info("DisaggregatedPrefillIT seed={}", seed);
        random = new SplittableRandom(seed);
        Path model = dir.resolve("m.gguf");
        RandomModel.write(new RandomModel.Spec(Architecture.LLAMA, new RandomModel.Shape(64, 2, 4, 2, 96, 512),
                GgmlType.Q8_0, null, 11), model);
        one = Cluster.start("disagg-it");
        two = Cluster.start("disagg-it-faults");
        aggregated = one.worker(WorkerRole.AGGREGATED, model);
        prefill = one.worker(WorkerRole.PREFILL, model);
        decode = one.worker(WorkerRole.DECODE, model);
        lonelyDecode = two.worker(WorkerRole.DECODE, model);
        for (WorkerApplication worker : List.of(aggregated, prefill, decode, lonelyDecode)) {
            worker.worker().ready().get(60, TimeUnit.SECONDS);
        }
        awaitTrue(() -> one.discovery().discovery().instances().size() == 3);
    }

    @AfterAll
    static void stop() {
        for (WorkerApplication worker : List.of(lonelyDecode, decode, prefill, aggregated)) {
            worker.close();
        }
        two.close();
        one.close();
    }

    @Test
    void disaggregatedGreedyOutputIsTheAggregatedOutput() throws Exception {
        double remoteBefore = metric(decode, "squall_worker_remote_prefills_total");
        double receivedBefore = metric(decode, "squall_worker_kv_blocks_received_total");
        double pushedBefore = metric(prefill, "squall_worker_kv_blocks_pushed_total");
        double fallbacksBefore = metric(decode, "squall_worker_remote_prefill_fallbacks_total");
        int expectedBlocks = 0;
        for (int length : new int[] {10 * BLOCK, 10 * BLOCK + 5, 3 * BLOCK + 1, 7 * BLOCK + 15}) {
            int[] prompt = tokens(length);
            ItSupport.Generated local = generate(aggregated, prompt, SamplingOptions.greedy());
            ItSupport.Generated remote = generate(decode, prompt, SamplingOptions.greedy());
            assertThat(remote.tokens()).as("prompt of %d tokens", length).containsExactly(local.tokens());
            expectedBlocks += (length - 1) / BLOCK;
        }
        assertThat(metric(decode, "squall_worker_remote_prefills_total")).isEqualTo(remoteBefore + 4);
        assertThat(metric(decode, "squall_worker_kv_blocks_received_total")).isEqualTo(receivedBefore + expectedBlocks);
        assertThat(metric(prefill, "squall_worker_kv_blocks_pushed_total")).isEqualTo(pushedBefore + expectedBlocks);
        assertThat(metric(decode, "squall_worker_remote_prefill_fallbacks_total")).isEqualTo(fallbacksBefore);
    }

    @Test
    void aCachedPrefixIsKeptAndOnlyTheRestIsPrefilledRemotely() throws Exception {
        int[] prefix = tokens(6 * BLOCK);
        generate(decode, prefix, SamplingOptions.greedy());
        int[] prompt = concat(prefix, tokens(4 * BLOCK + 3));
        double receivedBefore = metric(decode, "squall_worker_kv_blocks_received_total");

        ItSupport.Generated remote = generate(decode, prompt, SamplingOptions.greedy());

        assertThat(remote.usage().cachedTokens()).isEqualTo(prefix.length);
        assertThat(metric(decode, "squall_worker_kv_blocks_received_total")).isEqualTo(receivedBefore + 4);
        assertThat(remote.tokens()).containsExactly(generate(aggregated, prompt, SamplingOptions.greedy()).tokens());
    }

    @Test
    void seededSamplingGivesTheAggregatedTokensToo() {
        int[] prompt = tokens(8 * BLOCK + 7);
        SamplingOptions seeded = new SamplingOptions(0.9, 40, 0.95, 0, 1, 0, 0, 1234L);
        assertThat(generate(decode, prompt, seeded).tokens())
                .containsExactly(generate(aggregated, prompt, seeded).tokens());
    }

    @Test
    void promptsUpToTheThresholdStayLocalAndLongerOnesGoRemote() throws Exception {
        double remoteBefore = metric(decode, "squall_worker_remote_prefills_total");
        int[] atThreshold = tokens(DISAGG.minUncachedTokens());
        int[] beyond = tokens(DISAGG.minUncachedTokens() + 1);

        assertThat(generate(decode, atThreshold, SamplingOptions.greedy()).tokens())
                .containsExactly(generate(aggregated, atThreshold, SamplingOptions.greedy()).tokens());
        assertThat(metric(decode, "squall_worker_remote_prefills_total")).isEqualTo(remoteBefore);

        assertThat(generate(decode, beyond, SamplingOptions.greedy()).tokens())
                .containsExactly(generate(aggregated, beyond, SamplingOptions.greedy()).tokens());
        assertThat(metric(decode, "squall_worker_remote_prefills_total")).isEqualTo(remoteBefore + 1);
    }

    @Test
    void aBrokenTransferFallsBackToALocalPrefillWithTheSameTokensAndNoLeak() throws Exception {
        record Fault(String reason, BiFunction<PrefillRequest, RSocket, Mono<Void>> push) {
        }
        List<Fault> faults = List.of(
                new Fault("corrupt_frame", (request, rsocket) -> new RSocketKvPushClient(rsocket).push(
                        new KvPushHeader(request.reservation(), request.destinationBlockIds().length),
                        Flux.just(frame(request, request.firstBlock(), 1)))),
                new Fault("torn_transfer", (request, rsocket) -> new RSocketKvPushClient(rsocket).push(
                        new KvPushHeader(request.reservation(), request.destinationBlockIds().length),
                        Flux.just(frame(request, request.firstBlock(), 0))
                                .concatWith(Mono.fromRunnable(rsocket::dispose).then(Mono.<KvBlockFrame>never())))),
                new Fault("torn_transfer", (request, rsocket) -> new RSocketKvPushClient(rsocket).push(
                        new KvPushHeader(request.reservation(), request.destinationBlockIds().length),
                        Flux.just(frame(request, request.firstBlock(), 0)))),
                new Fault("prefill_error", (request, rsocket) -> Mono.error(new IllegalStateException("prefill broke"))));
        Worker worker = lonelyDecode.worker();
        int freeAtStart = worker.stats().freeKvBlocks();
        for (Fault fault : faults) {
            int[] prompt = tokens(5 * BLOCK + 9);
            double before = fallbacks(lonelyDecode, fault.reason());
            try (FakePrefillWorker fake = FakePrefillWorker.start(fault.push(), worker)) {
                ItSupport.Generated result = generate(lonelyDecode, prompt, SamplingOptions.greedy());

                assertThat(fake.asked.get()).as("the fake prefill worker was asked").isEqualTo(1);
                assertThat(result.tokens()).as(fault.reason())
                        .containsExactly(generate(aggregated, prompt, SamplingOptions.greedy()).tokens());
                assertThat(fallbacks(lonelyDecode, fault.reason())).as(fault.reason()).isEqualTo(before + 1);
            }
            awaitTrue(() -> worker.stats().freeKvBlocks() == freeAtStart);
        }
    }

    @Test
    void cancellingWhileTheBlocksAreAwaitedFreesThePagesAndCancelsThePrefill() throws Exception {
        Worker worker = lonelyDecode.worker();
        int freeAtStart = worker.stats().freeKvBlocks();
        double fallbacksBefore = metric(lonelyDecode, "squall_worker_remote_prefill_fallbacks_total");
        AtomicInteger waiting = new AtomicInteger();
        AtomicInteger cancelled = new AtomicInteger();
        try (FakePrefillWorker fake = FakePrefillWorker.start((request, rsocket) -> Mono.<Void>never()
                .doOnSubscribe(subscription -> waiting.incrementAndGet())
                .doOnCancel(cancelled::incrementAndGet), worker)) {
            RSocket rsocket = StageConnections.tcp("127.0.0.1", worker.rsocketPort()).block(TIMEOUT);
            try {
                Disposable stream = new RSocketGenerateClient(rsocket)
                        .generate(new GenerateRequest("cancelled", tokens(6 * BLOCK), SamplingOptions.greedy(), OUTPUT, true, -1))
                        .subscribe();
                awaitTrue(() -> waiting.get() == 1); // the fake holds the prefill call open
                awaitTrue(() -> worker.stats().freeKvBlocks() < freeAtStart); // the reserved pages

                stream.dispose();

                awaitTrue(() -> cancelled.get() == 1);
                awaitTrue(() -> worker.stats().freeKvBlocks() == freeAtStart);
                assertThat(metric(lonelyDecode, "squall_worker_remote_prefill_fallbacks_total"))
                        .as("a cancel is not a fallback").isEqualTo(fallbacksBefore);
            } finally {
                rsocket.dispose();
            }
        }
    }

    @Test
    void malformedPushesAreTypedErrorsAndTheWorkerKeepsServing() {
        RSocket rsocket = StageConnections.tcp("127.0.0.1", decode.worker().rsocketPort()).block(TIMEOUT);
        try {
            Throwable unknown = catchError(new RSocketKvPushClient(rsocket).push(new KvPushHeader(42, 1),
                    Flux.just(new KvBlockFrame(new BlockHash(1), 0, new byte[8], 0))));
            assertThat(unknown).hasMessageContaining("no open KV reservation");
            Throwable onPrefillOnly = catchError(new RSocketPrefillClient(rsocket)
                    .prefill(new PrefillRequest("x", new int[] {1, 2}, "squall/worker/generate/1", new int[] {1}, 0, 1,
                            SamplingOptions.greedy())));
            assertThat(onPrefillOnly).hasMessageContaining("not served by this worker's role");
        } finally {
            rsocket.dispose();
        }
        int[] prompt = tokens(BLOCK);
        assertThat(generate(decode, prompt, SamplingOptions.greedy()).tokens())
                .containsExactly(generate(aggregated, prompt, SamplingOptions.greedy()).tokens());
    }

    private static Throwable catchError(Mono<?> call) {
        try {
            call.block(TIMEOUT);
        } catch (RuntimeException e) {
            return e;
        }
        throw new AssertionError("expected an error");
    }

    /** A prefill worker in cluster two whose {@code prefill} connects to the decode worker and runs {@code push}. */
    private record FakePrefillWorker(InstanceId id, CloseableChannel server, Registration registration, AtomicInteger asked)
            implements AutoCloseable {

        static FakePrefillWorker start(BiFunction<PrefillRequest, RSocket, Mono<Void>> push, Worker decodeWorker)
                throws Exception {
            AtomicInteger asked = new AtomicInteger();
            CloseableChannel server = RSocketServer.create(SocketAcceptor.forRequestResponse(payload -> {
                        PrefillRequest request;
                        try {
                            request = WireFormat.decodePrefillRequest(payload.getData());
                        } finally {
                            payload.release();
                        }
                        asked.incrementAndGet();
                        return StageConnections.tcp("127.0.0.1", decodeWorker.rsocketPort())
                                .flatMap(rsocket -> push.apply(request, rsocket).doFinally(signal -> rsocket.dispose()))
                                .then(Mono.<Payload>error(new IllegalStateException("the fake never answers with a result")))
                                .onErrorMap(RSocketErrors::toRSocket);
                    }))
                    .bind(TcpServerTransport.create("127.0.0.1", 0))
                    .block(TIMEOUT);
            ServedModel model = decodeWorker.ready().get().model();
            InstanceId id = new InstanceId("squall", "worker", "generate", random.nextLong() >>> 1);
            WorkerInstance instance = new WorkerInstance(id, WorkerRole.PREFILL, model, "127.0.0.1",
                    server.address().getPort(), 1, 1, LoadReport.idle(1));
            Registration registration = two.discovery().discovery().register(instance, () -> LoadReport.idle(1));
            awaitTrue(() -> two.discovery().discovery().instances().stream().anyMatch(i -> i.id().equals(id)));
            return new FakePrefillWorker(id, server, registration, asked);
        }

        @Override
        public void close() {
            registration.close();
            server.dispose();
            awaitTrue(() -> two.discovery().discovery().instances().stream().noneMatch(i -> i.id().equals(id)));
        }
    }

    /** Block {@code index} of the request's prompt with the right hash and size but random bytes; {@code crcFlip} ≠ 0 corrupts its CRC32C. */
    private static KvBlockFrame frame(PrefillRequest request, int index, int crcFlip) {
        byte[] payload = new byte[BLOCK_BYTES];
        random.nextBytes(payload);
        BlockHasher decodeWorkersHashes = lonelyDecode.worker().ready().join().model().blockHasher();
        return new KvBlockFrame(decodeWorkersHashes.hash(request.tokens()).hashes()[index], index, payload,
                WireFormat.crc32c(payload) ^ crcFlip);
    }

    private static ItSupport.Generated generate(WorkerApplication worker, int[] prompt, SamplingOptions sampling) {
        return ItSupport.generate(worker.worker().rsocketPort(),
                new GenerateRequest("disagg-" + random.nextInt(), prompt, sampling, OUTPUT, true, -1));
    }

    /** The sum of a metric's samples (all labels) on the worker's {@code /metrics}; 0 when absent. */
    private static double metric(WorkerApplication worker, String name) throws IOException, InterruptedException {
        return metric(worker, name, "");
    }

    private static double fallbacks(WorkerApplication worker, String reason) throws IOException, InterruptedException {
        return metric(worker, "squall_worker_remote_prefill_fallbacks_total", "reason=\"" + reason + "\"");
    }

    /** The sum of the metric's samples whose labels contain {@code label}. */
    private static double metric(WorkerApplication worker, String name, String label) throws IOException, InterruptedException {
        String body = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + worker.worker().httpPort() + "/metrics"))
                .timeout(TIMEOUT).build(), HttpResponse.BodyHandlers.ofString()).body();
        Matcher matcher = Pattern.compile("(?m)^" + Pattern.quote(name) + "(\\{[^}]*})? (\\S+)$").matcher(body);
        double total = 0;
        while (matcher.find()) {
            if (matcher.group(1) == null ? label.isEmpty() : matcher.group(1).contains(label)) {
                total += Double.parseDouble(matcher.group(2));
            }
        }
        return total;
    }

    private static int[] tokens(int n) {
        return random.ints(n, 3, 200).toArray();
    }
}
