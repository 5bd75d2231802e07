package io.squall.functions.worker;

import com.hazelcast.core.HazelcastInstance;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.rsocket.RSocket;
import io.rsocket.util.ByteBufPayload;
import io.squall.functions.api.CacheSources;
import io.squall.functions.api.ErrorCode;
import io.squall.functions.api.FinishReason;
import io.squall.functions.api.GenerateRequest;
import io.squall.functions.api.KvFetchRequest;
import io.squall.functions.api.Routes;
import io.squall.functions.api.SamplingOptions;
import io.squall.functions.api.StageException;
import io.squall.functions.api.TokenChunk;
import io.squall.functions.discovery.DiscoveryEvent;
import io.squall.functions.discovery.WorkerRole;
import io.squall.functions.discovery.hazelcast.DiscoveryConfig;
import io.squall.functions.discovery.hazelcast.HazelcastDiscovery;
import io.squall.functions.api.rsocket.RSocketErrors;
import io.squall.functions.api.rsocket.RSocketGenerateClient;
import io.squall.functions.api.rsocket.RSocketKvFetchClient;
import io.squall.functions.api.rsocket.RouteMetadata;
import io.squall.functions.api.rsocket.StageConnections;
import io.squall.functions.engine.batch.BatchConfig;
import io.squall.functions.worker.kv.KvConfig;
import io.squall.functions.engine.generate.Generator;
import io.squall.functions.engine.model.Architecture;
import io.squall.functions.engine.model.Model;
import io.squall.functions.engine.model.RandomModel;
import io.squall.functions.engine.model.Transformer;
import io.squall.functions.engine.sampling.Sampler;
import io.squall.functions.engine.sampling.SamplingParams;
import io.squall.functions.worker.micronaut.WorkerApplication;
import io.squall.kernels.GgmlType;
import io.squall.kernels.Kernels;
import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.grid.GridConfig;
import io.squall.kvgrid.grid.GridMembers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static io.squall.functions.worker.ItSupport.awaitTrue;
import static io.squall.functions.worker.ItSupport.freePort;
import static org.assertj.core.api.Assertions.assertThat;

/** A real worker (Micronaut context, RSocket over TCP and WebSocket, HTTP, Hazelcast) on loopback. */
class WorkerIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final BatchConfig BATCH = new BatchConfig(8, 64, true, 64, true);
    private static final KvConfig KV = KvConfig.inMemory(64);

    @TempDir
    static Path dir;

    private static Path modelFile;
    private static HazelcastInstance member;
    private static HazelcastDiscovery discovery;
    private static WorkerApplication application;
    private static Worker worker;
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @BeforeAll
    static void start() throws Exception {
        modelFile = dir.resolve("m.gguf");
        RandomModel.write(new RandomModel.Spec(Architecture.LLAMA, new RandomModel.Shape(64, 2, 4, 2, 96, 512),
                GgmlType.Q8_0, null, 11), modelFile);
        int port = freePort();
        member = GridMembers.start(new GridConfig("worker-it-" + port, "127.0.0.1", port,
                List.of("127.0.0.1:" + port), 1, 1000));
        discovery = new HazelcastDiscovery(member, DiscoveryConfig.defaults());
        application = WorkerApplication.start(WorkerConfig.loopback(WorkerRole.AGGREGATED, BATCH, KV),
                ModelSource.file(modelFile), discovery.discovery());
        worker = application.worker();
        worker.ready().get(60, TimeUnit.SECONDS);
    }

    @AfterAll
    static void stop() {
        application.close();
        discovery.close();
        member.getLifecycleService().terminate();
    }

    private static int[] greedy(int[] prompt, int maxTokens) {
        try (Model model = Model.load(modelFile); Kernels kernels = Kernels.best()) {
            Transformer transformer = new Transformer(model.config(), model.weights(), kernels, 4096);
            return new Generator(transformer, 64)
                    .generate(prompt, new Sampler(SamplingParams.greedy(), model.config().vocabSize()), maxTokens,
                            t -> false, t -> { })
                    .tokens();
        }
    }

    private static GenerateRequest request(String id, int[] prompt, int maxTokens) {
        return new GenerateRequest(id, prompt, SamplingOptions.greedy(), maxTokens, true, -1);
    }

    private static RSocket connect(String transport) {
        RSocket rsocket = switch (transport) {
            case "tcp" -> StageConnections.tcp("127.0.0.1", worker.rsocketPort()).block(TIMEOUT);
            case "websocket" -> StageConnections.websocket(URI.create("ws://127.0.0.1:" + worker.httpPort() + "/rsocket"))
                    .block(TIMEOUT);
            default -> throw new IllegalArgumentException(transport);
        };
        assertThat(rsocket).isNotNull();
        return rsocket;
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "websocket"})
    void streamsExactlyTheTokensOfInProcessGreedyGenerationOneRequestAtATime(String transport) {
        int[] prompt = {5, 17, 42, 99, 3};
        int[] expected = greedy(prompt, 12);
        RSocket rsocket = connect(transport);
        try {
            long before = worker.stats().generatedTokens();
            StepVerifier.Step<TokenChunk> step = StepVerifier.create(
                    new RSocketGenerateClient(rsocket).generate(request("exact-" + transport, prompt, 12)), 0);
            for (int i = 0; i < expected.length; i++) {
                int token = expected[i];
                int received = i + 1;
                step = step.thenRequest(1)
                        .assertNext(chunk -> assertThat(chunk.tokenIds()).containsExactly(token))
                        // no demand beyond what was requested reaches the scheduler
                        .then(() -> assertThat(worker.stats().generatedTokens() - before).isLessThanOrEqualTo(received));
            }
            step.thenRequest(1)
                    .assertNext(chunk -> {
                        assertThat(chunk.finishReason()).isEqualTo(FinishReason.LENGTH);
                        assertThat(chunk.usage()).isEqualTo(new TokenChunk.Usage(5, 12, 0, CacheSources.NONE));
                    })
                    .expectComplete()
                    .verify(TIMEOUT);
        } finally {
            rsocket.dispose();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "websocket"})
    void cancellingAStreamFreesItsKvBlocks(String transport) {
        RSocket rsocket = connect(transport);
        try {
            StepVerifier.create(new RSocketGenerateClient(rsocket).generate(request("cancel", new int[100], 300)), 2)
                    .expectNextCount(2)
                    .then(() -> assertThat(worker.stats().freeKvBlocks()).isLessThan(KV.blocks()))
                    .thenCancel()
                    .verify(TIMEOUT);
            awaitTrue(() -> worker.stats().freeKvBlocks() == KV.blocks() && worker.stats().running() == 0);
        } finally {
            rsocket.dispose();
        }
    }

    @Test
    void aMalformedPayloadFailsOnlyItsOwnStream() {
        RSocket rsocket = connect("tcp");
        try {
            int[] prompt = {1, 2, 3};
            int[] expected = greedy(prompt, 4);
            Flux<TokenChunk> good = new RSocketGenerateClient(rsocket).generate(request("good", prompt, 4));
            Flux<?> bad = rsocket.requestStream(ByteBufPayload.create(Unpooled.wrappedBuffer(new byte[] {1, 1, (byte) 0xFF}),
                            RouteMetadata.encode(ByteBufAllocator.DEFAULT, Routes.GENERATE)))
                    .onErrorMap(RSocketErrors::fromRSocket);
            StepVerifier.create(good, 0)
                    .thenRequest(1)
                    .assertNext(chunk -> assertThat(chunk.tokenIds()).containsExactly(expected[0]))
                    .then(() -> StepVerifier.create(bad)
                            .expectErrorSatisfies(e -> assertThat(e).isInstanceOfSatisfying(StageException.class, s -> {
                                assertThat(s.code()).isEqualTo(ErrorCode.INVALID_REQUEST);
                                assertThat(s.getMessage()).contains("malformed frame");
                            }))
                            .verify(TIMEOUT))
                    .thenRequest(Long.MAX_VALUE)
                    .assertNext(chunk -> assertThat(chunk.tokenIds()).containsExactly(expected[1]))
                    .assertNext(chunk -> assertThat(chunk.tokenIds()).containsExactly(expected[2]))
                    .assertNext(chunk -> assertThat(chunk.tokenIds()).containsExactly(expected[3]))
                    .assertNext(chunk -> assertThat(chunk.isLast()).isTrue())
                    .expectComplete()
                    .verify(TIMEOUT);
        } finally {
            rsocket.dispose();
        }
    }

    @Test
    void routesOfOtherRolesAndUnknownRoutesAnswerNotFound() {
        RSocket rsocket = connect("tcp");
        try {
            for (String route : List.of(Routes.PREFILL, "no.such.route")) {
                StepVerifier.create(rsocket.requestStream(ByteBufPayload.create(Unpooled.EMPTY_BUFFER,
                                        RouteMetadata.encode(ByteBufAllocator.DEFAULT, route)))
                                .onErrorMap(RSocketErrors::fromRSocket))
                        .expectErrorSatisfies(e -> assertThat(((StageException) e).code()).isEqualTo(ErrorCode.NOT_FOUND))
                        .verify(TIMEOUT);
            }
            StepVerifier.create(rsocket.requestResponse(ByteBufPayload.create(Unpooled.EMPTY_BUFFER,
                                    RouteMetadata.encode(ByteBufAllocator.DEFAULT, Routes.PREFILL)))
                            .onErrorMap(RSocketErrors::fromRSocket))
                    .expectErrorSatisfies(e -> assertThat(((StageException) e).code()).isEqualTo(ErrorCode.NOT_FOUND))
                    .verify(TIMEOUT);
            StepVerifier.create(rsocket.requestChannel(Flux.just(ByteBufPayload.create(Unpooled.EMPTY_BUFFER,
                                    RouteMetadata.encode(ByteBufAllocator.DEFAULT, Routes.KV_PUSH))))
                            .onErrorMap(RSocketErrors::fromRSocket))
                    .expectErrorSatisfies(e -> assertThat(((StageException) e).code()).isEqualTo(ErrorCode.NOT_FOUND))
                    .verify(TIMEOUT);
        } finally {
            rsocket.dispose();
        }
    }

    @Test
    void kvFetchFromAWorkerWithoutLowerTiersCompletesEmptyAndRejectsMalformedRequests() {
        RSocket rsocket = connect("tcp");
        try {
            StepVerifier.create(new RSocketKvFetchClient(rsocket).fetch(new KvFetchRequest(List.of(new BlockHash(1)))))
                    .expectComplete()
                    .verify(TIMEOUT);
            StepVerifier.create(rsocket.requestStream(ByteBufPayload.create(Unpooled.EMPTY_BUFFER,
                                    RouteMetadata.encode(ByteBufAllocator.DEFAULT, Routes.KV_FETCH)))
                            .onErrorMap(RSocketErrors::fromRSocket))
                    .expectErrorSatisfies(e -> assertThat(((StageException) e).code()).isEqualTo(ErrorCode.INVALID_REQUEST))
                    .verify(TIMEOUT);
        } finally {
            rsocket.dispose();
        }
    }

    @Test
    void metricsCountRequestsTokensAndKvBlocks() throws Exception {
        RSocket rsocket = connect("tcp");
        try {
            StepVerifier.create(new RSocketGenerateClient(rsocket).generate(request("metrics", new int[] {4, 5}, 3)))
                    .expectNextCount(4)
                    .expectComplete()
                    .verify(TIMEOUT);
        } finally {
            rsocket.dispose();
        }
        HttpResponse<String> metrics = get(worker.httpPort(), "/metrics");
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.body())
                .containsPattern("squall_worker_requests_total [1-9]")
                .contains("squall_worker_time_to_first_token_seconds_bucket")
                .contains("squall_worker_inter_token_latency_seconds_count")
                .contains("squall_worker_running_sequences")
                .contains("squall_worker_waiting_sequences")
                .contains("squall_worker_kv_blocks_free " + KV.blocks())
                .containsPattern("squall_worker_generated_tokens_total [1-9]");
    }

    @Test
    void readinessTurnsFrom503To200WhenTheModelIsLoadedAndAStoppedWorkerLeavesDiscoveryWithinASecond() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        ModelSource gated = () -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            return ModelSource.file(modelFile).open();
        };
        WorkerApplication second = WorkerApplication.start(WorkerConfig.loopback(WorkerRole.DECODE, BATCH, KV), gated,
                discovery.discovery());
        AtomicLong stoppedAt = new AtomicLong();
        try {
            int port = second.worker().httpPort();
            assertThat(get(port, "/healthz").statusCode()).isEqualTo(200);
            assertThat(get(port, "/readyz").statusCode()).isEqualTo(503);
            StepVerifier.create(discovery.discovery().watch().filter(e -> !(e instanceof DiscoveryEvent.Updated)))
                    .expectNextMatches(e -> e instanceof DiscoveryEvent.Added a && a.instance().id().equals(worker.id()))
                    .then(release::countDown)
                    .expectNextMatches(e -> e instanceof DiscoveryEvent.Added a && a.instance().id().equals(second.worker().id())
                            && a.instance().role() == WorkerRole.DECODE)
                    .then(() -> assertThat(getUnchecked(port, "/readyz").statusCode()).isEqualTo(200))
                    .then(() -> {
                        stoppedAt.set(System.nanoTime());
                        second.close();
                    })
                    .expectNextMatches(e -> e instanceof DiscoveryEvent.Removed r && r.id().equals(second.worker().id()))
                    .then(() -> assertThat(Duration.ofNanos(System.nanoTime() - stoppedAt.get())).isLessThan(Duration.ofSeconds(1)))
                    .thenCancel()
                    .verify(TIMEOUT);
        } finally {
            release.countDown();
            second.close();
        }
    }

    private static HttpResponse<String> get(int port, String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(TIMEOUT).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> getUnchecked(int port, String path) {
        try {
            return get(port, path);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Spins until {@code condition} holds; fails after the timeout. */
}
