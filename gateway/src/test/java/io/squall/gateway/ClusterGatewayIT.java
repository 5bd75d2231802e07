package io.squall.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.hazelcast.core.HazelcastInstance;
import io.squall.functions.api.auth.ClusterSecret;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The path {@code squall serve} takes: two real workers registered in Hazelcast discovery, the gateway
 * routing round robin to them over RSocket, an OpenAI client over HTTP.
 */
class ClusterGatewayIT {

    private static final String CHAT = """
            {"model":"m","messages":[{"role":"user","content":"Hello there"}],"max_tokens":6,"temperature":0}""";

    @TempDir
    Path dir;

    @Test
    void chatCompletionsAreServedByEveryDiscoveredWorkerAlike() throws Exception {
        Path model = ClusterFixtures.smallLlama(dir.resolve("m.gguf"), 512, 17);
        HazelcastInstance member = ClusterFixtures.member("gateway-it-");
        List<WorkerApplication> workers = new ArrayList<>();
        try (HazelcastDiscovery discovery = new HazelcastDiscovery(member, DiscoveryConfig.defaults());
             RoutedGenerateService route = new RoutedGenerateService(discovery.discovery(), "m",
                     Routers.ROUND_ROBIN.policy(null));
             GgufFile file = GgufFile.open(model)) {
            for (int i = 0; i < 2; i++) {
                WorkerApplication worker = WorkerApplication.start(WorkerConfig.loopback(WorkerRole.AGGREGATED,
                        BatchConfig.defaults(), KvConfig.inMemory(256)).withServedModelName("m"), ModelSource.file(model),
                        discovery.discovery());
                workers.add(worker);
                worker.worker().ready().get(60, TimeUnit.SECONDS);
            }
            try (GatewayServer gateway = GatewayServer.start(GatewayConfig.loopback(),
                    Map.of("m", ModelEndpoint.fromGguf(file.metadata(), route, route)))) {
                Http http = Http.to(gateway);
                List<String> replies = new ArrayList<>();
                for (int i = 0; i < 2; i++) {
                    HttpResponse<String> response = http.post("/v1/chat/completions", CHAT);
                    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
                    JsonNode json = new ObjectMapper().readTree(response.body());
                    assertThat(json.at("/usage/completion_tokens").asInt()).isBetween(1, 6);
                    replies.add(json.at("/choices/0/message/content").asText());
                }
                assertThat(replies.get(1)).as("greedy output does not depend on the worker").isEqualTo(replies.get(0));
                for (WorkerApplication worker : workers) {
                    assertThat(worker.worker().stats().generatedTokens()).as("each worker served one request").isPositive();
                }
            }
        } finally {
            workers.forEach(WorkerApplication::close);
            member.getLifecycleService().terminate();
        }
    }

    @Test
    void inAClosedClusterOnlyAGatewayWithTheSecretIsServed() throws Exception {
        ClusterSecret secret = ClusterSecret.of("gateway-it: the cluster's secret".getBytes(StandardCharsets.UTF_8));
        Path model = ClusterFixtures.smallLlama(dir.resolve("closed.gguf"), 512, 23);
        HazelcastInstance member = ClusterFixtures.member("gateway-closed-it-");
        WorkerApplication worker = null;
        try (HazelcastDiscovery discovery = new HazelcastDiscovery(member, DiscoveryConfig.defaults());
             RoutedGenerateService trusted = new RoutedGenerateService(discovery.discovery(), "m", Routers.ROUND_ROBIN.policy(null), secret);
             RoutedGenerateService stranger = new RoutedGenerateService(discovery.discovery(), "m", Routers.ROUND_ROBIN.policy(null));
             GgufFile file = GgufFile.open(model)) {
            worker = WorkerApplication.start(WorkerConfig.loopback(WorkerRole.AGGREGATED, BatchConfig.defaults(),
                    KvConfig.inMemory(64)).withClusterSecret(secret).withServedModelName("m"), ModelSource.file(model), discovery.discovery());
            worker.worker().ready().get(60, TimeUnit.SECONDS);
            try (GatewayServer withSecret = GatewayServer.start(GatewayConfig.loopback(),
                         Map.of("m", ModelEndpoint.fromGguf(file.metadata(), trusted, trusted)));
                 GatewayServer without = GatewayServer.start(GatewayConfig.loopback(),
                         Map.of("m", ModelEndpoint.fromGguf(file.metadata(), stranger, stranger)))) {
                HttpResponse<String> refused = Http.to(without).post("/v1/chat/completions", CHAT);
                assertThat(refused.statusCode()).as(refused.body()).isGreaterThanOrEqualTo(500);
                assertThat(worker.worker().stats().generatedTokens()).isZero();
                HttpResponse<String> served = Http.to(withSecret).post("/v1/chat/completions", CHAT);
                assertThat(served.statusCode()).as(served.body()).isEqualTo(200);
                assertThat(worker.worker().stats().generatedTokens()).isPositive();
            }
        } finally {
            if (worker != null) {
                worker.close();
            }
            member.getLifecycleService().terminate();
        }
    }
}
