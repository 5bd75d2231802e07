package io.squall.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.hazelcast.core.HazelcastInstance;
import io.rsocket.RSocket;
import io.rsocket.exceptions.CustomRSocketException;
import io.rsocket.transport.netty.client.TcpClientTransport;
import io.squall.functions.api.ErrorCode;
import io.squall.functions.api.Routes;
import io.squall.functions.discovery.ServedModel;
import io.squall.functions.discovery.WorkerInstance;
import io.squall.functions.discovery.WorkerRole;
import io.squall.functions.discovery.hazelcast.DiscoveryConfig;
import io.squall.functions.discovery.hazelcast.HazelcastDiscovery;
import io.squall.functions.engine.batch.BatchConfig;
import io.squall.functions.engine.gguf.GgufFile;
import io.squall.functions.worker.ModelSource;
import io.squall.functions.worker.WorkerConfig;
import io.squall.functions.worker.kv.KvConfig;
import io.squall.functions.worker.micronaut.WorkerApplication;
import io.squall.gateway.routing.RoutedGenerateService;
import io.squall.gateway.routing.Routers;
import io.squall.kvgrid.hash.BlockHasher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static io.squall.gateway.Conditions.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * One source of truth for a model's limits: workers advertise their model, context length, block size and hash
 * salt in discovery; the gateway takes the context from them (never from the model file), routes only to workers
 * of the requested model, and rejects a prompt that does not fit once, before routing, with the same 400 over
 * HTTP and RSocket whichever worker would have served it.
 */
class ModelLimitsIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int BLOCK = BlockHasher.DEFAULT_BLOCK_SIZE;
    /** Worker A's KV pool: 12 blocks, so it runs sequences of at most 192 tokens although its context is 512. */
    private static final int SMALL_POOL_BLOCKS = 12;
    private static final int LIMIT = SMALL_POOL_BLOCKS * BLOCK;

    @TempDir
    Path dir;

    @Test
    void workersAdvertiseTheirLimitsAndAPromptThatFitsNoneGetsOneErrorOverHttpAndRSocket() throws Exception {
        Path file = ClusterFixtures.smallLlama(dir.resolve("tiny.gguf"), 1024, 41);
        HazelcastInstance member = ClusterFixtures.member("model-limits-it-");
        List<WorkerApplication> workers = new ArrayList<>();
        try (HazelcastDiscovery discovery = new HazelcastDiscovery(member, DiscoveryConfig.defaults());
             RoutedGenerateService route = new RoutedGenerateService(discovery.discovery(), "m",
                     Routers.ROUND_ROBIN.policy(null));
             GgufFile gguf = GgufFile.open(file)) {
            WorkerConfig base = WorkerConfig.loopback(WorkerRole.AGGREGATED, BatchConfig.defaults(), KvConfig.inMemory(256));
            WorkerApplication kvBound = start(workers, base.withServedModelName("m").withMaxPositions(512)
                    .withKv(KvConfig.inMemory(SMALL_POOL_BLOCKS)), file, discovery);
            WorkerApplication contextBound = start(workers, base.withServedModelName("m").withMaxPositions(256), file,
                    discovery);
            WorkerApplication otherModel = start(workers, base.withServedModelName("other"), file, discovery);
            await("three workers registered", () -> discovery.discovery().instances().size() == 3);

            assertThat(advertised(discovery, kvBound)).isEqualTo(ServedModel.of("m", LIMIT, BLOCK));
            assertThat(advertised(discovery, contextBound)).isEqualTo(ServedModel.of("m", 256, BLOCK));
            assertThat(advertised(discovery, otherModel)).as("the model's own context, 1024")
                    .isEqualTo(ServedModel.of("other", 1024, BLOCK));
            assertThat(advertised(discovery, kvBound).blockHasher().hash(prompt(2 * BLOCK)).hash(1))
                    .as("workers of different models hash one prompt differently: the salt is the model")
                    .isNotEqualTo(advertised(discovery, otherModel).blockHasher().hash(prompt(2 * BLOCK)).hash(1));

            try (GatewayServer gateway = GatewayServer.start(GatewayConfig.loopback(),
                    Map.of("m", ModelEndpoint.fromGguf(gguf.metadata(), route, route)))) {
                Http http = Http.to(gateway);
                JsonNode models = JSON.readTree(http.get("/v1/models").body());
                assertThat(models.at("/data/0/max_model_len").asInt()).as("the smallest context of m's workers")
                        .isEqualTo(LIMIT);

                String tooLong = completion(LIMIT + 8, 1);
                HttpResponse<String> first = http.post("/v1/completions", tooLong);
                HttpResponse<String> second = http.post("/v1/completions", tooLong);
                assertThat(first.statusCode()).as(first.body()).isEqualTo(400);
                JsonNode error = JSON.readTree(first.body());
                assertThat(error.at("/error/code").asText()).isEqualTo("context_length_exceeded");
                assertThat(error.at("/error/message").asText()).contains("maximum context length is " + LIMIT + " tokens");
                assertThat(second.body()).as("round robin would pick the other worker: the same answer")
                        .isEqualTo(first.body());

                RSocket socket = ClientApi.connect(TcpClientTransport.create("127.0.0.1", gateway.rsocketTcpPort()));
                try {
                    assertThatThrownBy(() -> ClientApi.stream(socket, Routes.V1_COMPLETIONS, null, tooLong))
                            .isInstanceOfSatisfying(CustomRSocketException.class, e -> {
                                assertThat(e.errorCode()).isEqualTo(ErrorCode.INVALID_REQUEST.rsocketCode());
                                assertThat(json(e.getMessage())).as("the HTTP body, word for word").isEqualTo(error);
                            });
                } finally {
                    socket.dispose();
                }
                assertThat(workers).as("no worker saw the rejected requests")
                        .allSatisfy(w -> assertThat(w.worker().stats().generatedTokens()).isZero());

                String fits = completion(LIMIT - 12, 8);
                for (int i = 0; i < 2; i++) {
                    HttpResponse<String> response = http.post("/v1/completions", fits);
                    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
                    assertThat(JSON.readTree(response.body()).at("/usage/completion_tokens").asInt()).isEqualTo(8);
                }
            }
            assertThat(kvBound.worker().stats().generatedTokens()).as("m's workers took turns").isEqualTo(8);
            assertThat(contextBound.worker().stats().generatedTokens()).isEqualTo(8);
            assertThat(otherModel.worker().stats().generatedTokens()).as("never routed to another model's worker")
                    .isZero();
        } finally {
            workers.forEach(WorkerApplication::close);
            member.getLifecycleService().terminate();
        }
    }

    private static WorkerApplication start(List<WorkerApplication> started, WorkerConfig config, Path file,
                                           HazelcastDiscovery discovery) throws Exception {
        WorkerApplication worker = WorkerApplication.start(config, ModelSource.file(file), discovery.discovery());
        started.add(worker);
        worker.worker().ready().get(60, TimeUnit.SECONDS);
        return worker;
    }

    private static ServedModel advertised(HazelcastDiscovery discovery, WorkerApplication worker) {
        return discovery.discovery().instances().stream().filter(w -> w.id().equals(worker.worker().id()))
                .map(WorkerInstance::model).findFirst().orElseThrow();
    }

    /** A completion of {@code promptTokens} token ids, greedy, exactly {@code maxTokens} long. */
    private static String completion(int promptTokens, int maxTokens) {
        String ids = Arrays.stream(prompt(promptTokens)).mapToObj(Integer::toString).collect(Collectors.joining(","));
        return "{\"model\":\"m\",\"prompt\":[" + ids + "],\"max_tokens\":" + maxTokens
                + ",\"temperature\":0,\"ignore_eos\":true}";
    }

    private static int[] prompt(int tokens) {
        return new SplittableRandom(tokens).ints(tokens, 3, 250).toArray();
    }

    private static JsonNode json(String text) {
        try {
            return JSON.readTree(text);
        } catch (Exception e) {
            throw new AssertionError("not JSON: " + text, e);
        }
    }
}
