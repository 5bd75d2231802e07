package io.squall.functions.worker;

import com.hazelcast.core.HazelcastInstance;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketConnector;
import io.rsocket.exceptions.RejectedSetupException;
import io.rsocket.transport.ClientTransport;
import io.rsocket.transport.netty.client.TcpClientTransport;
import io.rsocket.transport.netty.client.WebsocketClientTransport;
import io.squall.functions.api.GenerateRequest;
import io.squall.functions.api.KvFetchRequest;
import io.squall.functions.api.SamplingOptions;
import io.squall.functions.api.StageException;
import io.squall.functions.api.TokenChunk;
import io.squall.functions.api.auth.ClusterSecret;
import io.squall.functions.api.auth.SetupVerifier;
import io.squall.functions.api.rsocket.RSocketGenerateClient;
import io.squall.functions.api.rsocket.RSocketKvFetchClient;
import io.squall.functions.api.rsocket.RouteMetadata;
import io.squall.functions.api.rsocket.StageConnections;
import io.squall.functions.discovery.WorkerRole;
import io.squall.functions.discovery.hazelcast.DiscoveryConfig;
import io.squall.functions.discovery.hazelcast.HazelcastDiscovery;
import io.squall.functions.engine.batch.BatchConfig;
import io.squall.functions.engine.model.Architecture;
import io.squall.functions.engine.model.RandomModel;
import io.squall.functions.worker.kv.KvConfig;
import io.squall.functions.worker.micronaut.WorkerApplication;
import io.squall.kernels.GgmlType;
import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.grid.GridConfig;
import io.squall.kvgrid.grid.GridMembers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Mono;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.squall.functions.worker.ItSupport.freePort;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A worker of a closed cluster on loopback, over RSocket TCP and RSocket over WebSocket on its HTTP port: a peer
 * without the cluster secret (no credentials at all, or a proof of another secret) is refused at SETUP and gets no
 * route served; each refusal is counted by reason in {@code /metrics}; a peer with the secret is served.
 */
class ClosedClusterIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final ClusterSecret SECRET = ClusterSecret.of("closed-cluster-it secret, 32 bytes".getBytes(StandardCharsets.UTF_8));
    private static final ClusterSecret OTHER = ClusterSecret.of("some other cluster's secret....".getBytes(StandardCharsets.UTF_8));
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @org.junit.jupiter.api.io.TempDir
    static Path dir;

    private static HazelcastInstance member;
    private static HazelcastDiscovery discovery;
    private static WorkerApplication application;
    private static Worker worker;

    @BeforeAll
    static void start() throws Exception {
        Path model = dir.resolve("m.gguf");
        RandomModel.write(new RandomModel.Spec(Architecture.LLAMA, new RandomModel.Shape(64, 2, 4, 2, 96, 512),
                GgmlType.Q8_0, null, 5), model);
        int port = freePort();
        member = GridMembers.start(new GridConfig("closed-it-" + port, "127.0.0.1", port, List.of("127.0.0.1:" + port), 1, 1000));
        discovery = new HazelcastDiscovery(member, DiscoveryConfig.defaults());
        application = WorkerApplication.start(WorkerConfig.loopback(WorkerRole.AGGREGATED,
                new BatchConfig(4, 64, true, 16, true), KvConfig.inMemory(64)).withClusterSecret(SECRET),
                ModelSource.file(model), discovery.discovery());
        worker = application.worker();
        worker.ready().get(60, TimeUnit.SECONDS);
    }

    @AfterAll
    static void stop() {
        application.close();
        discovery.close();
        member.getLifecycleService().terminate();
    }

    private static GenerateRequest request(String id) {
        return new GenerateRequest(id, new int[] {1, 7, 9}, SamplingOptions.greedy(), 4, true, -1);
    }

    private static ClientTransport transport(String kind) {
        return switch (kind) {
            case "tcp" -> TcpClientTransport.create("127.0.0.1", worker.rsocketPort());
            case "websocket" -> WebsocketClientTransport.create(URI.create("ws://127.0.0.1:" + worker.httpPort() + "/rsocket"));
            default -> throw new IllegalArgumentException(kind);
        };
    }

    private static Mono<RSocket> connect(String kind, ClusterSecret secret) {
        return switch (kind) {
            case "tcp" -> StageConnections.tcp("127.0.0.1", worker.rsocketPort(), secret);
            case "websocket" -> StageConnections.websocket(URI.create("ws://127.0.0.1:" + worker.httpPort() + "/rsocket"), secret);
            default -> throw new IllegalArgumentException(kind);
        };
    }

    /** The worker's count of connections refused for {@code reason}, from its {@code /metrics}. */
    private static double rejected(SetupVerifier.Rejection reason) throws Exception {
        String metrics = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + worker.httpPort() + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        Matcher m = Pattern.compile("squall_stage_rejected_connections_total\\{reason=\"" + reason.label() + "\",?} (\\S+)")
                .matcher(metrics);
        assertThat(m.find()).as("the rejection counter in /metrics").isTrue();
        return Double.parseDouble(m.group(1));
    }

    /** Asserts that every route fails on {@code rsocket} and that the connection was closed by a refused SETUP. */
    private static void assertNoRouteServed(RSocket rsocket, SetupVerifier.Rejection reason) {
        long generated = worker.stats().generatedTokens();
        assertThatThrownBy(() -> new RSocketGenerateClient(rsocket).generate(request("stranger")).collectList().block(TIMEOUT))
                .isInstanceOf(StageException.class);
        assertThatThrownBy(() -> new RSocketKvFetchClient(rsocket).fetch(new KvFetchRequest(List.of(new BlockHash(1))))
                .collectList().block(TIMEOUT)).isInstanceOf(StageException.class);
        assertThatThrownBy(() -> rsocket.onClose().block(TIMEOUT))
                .isInstanceOf(RejectedSetupException.class).hasMessage(reason.message());
        assertThat(worker.stats().generatedTokens()).as("nothing was generated for a stranger").isEqualTo(generated);
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "websocket"})
    void aClientWithoutCredentialsGetsNoRoute(String kind) throws Exception {
        double before = rejected(SetupVerifier.Rejection.MISSING);
        // a plain RSocket client, as anyone who reaches the port would write: no SETUP metadata at all
        RSocket stranger = RSocketConnector.create()
                .metadataMimeType(RouteMetadata.METADATA_MIME_TYPE)
                .connect(transport(kind)).block(TIMEOUT);
        assertNoRouteServed(stranger, SetupVerifier.Rejection.MISSING);
        // so is Squall's own client without a secret
        assertNoRouteServed(connect(kind, ClusterSecret.open()).block(TIMEOUT), SetupVerifier.Rejection.MISSING);
        assertThat(rejected(SetupVerifier.Rejection.MISSING)).isEqualTo(before + 2);
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "websocket"})
    void aClientProvingAnotherSecretGetsNoRoute(String kind) throws Exception {
        double before = rejected(SetupVerifier.Rejection.BAD_PROOF);
        assertNoRouteServed(connect(kind, OTHER).block(TIMEOUT), SetupVerifier.Rejection.BAD_PROOF);
        assertThat(rejected(SetupVerifier.Rejection.BAD_PROOF)).isEqualTo(before + 1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "websocket"})
    void aClientProvingTheSecretIsServed(String kind) throws Exception {
        double refusals = 0;
        for (SetupVerifier.Rejection reason : SetupVerifier.Rejection.values()) {
            refusals += rejected(reason);
        }
        RSocket peer = connect(kind, SECRET).block(TIMEOUT);
        try {
            List<TokenChunk> chunks = new RSocketGenerateClient(peer).generate(request("peer-" + kind)).collectList().block(TIMEOUT);
            assertThat(chunks).isNotEmpty();
            assertThat(chunks.getLast().finishReason()).isNotNull();
            assertThat(new RSocketKvFetchClient(peer).fetch(new KvFetchRequest(List.of(new BlockHash(1))))
                    .collectList().block(TIMEOUT)).isEmpty();
        } finally {
            peer.dispose();
        }
        double after = 0;
        for (SetupVerifier.Rejection reason : SetupVerifier.Rejection.values()) {
            after += rejected(reason);
        }
        assertThat(after).as("no refusal for a peer with the secret").isEqualTo(refusals);
    }
}
