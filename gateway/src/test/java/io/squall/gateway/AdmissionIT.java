package io.squall.gateway;

import io.squall.functions.api.TokenChunk;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/** The in-flight limit and queue (503), the per-request timeout (504), and client disconnects freeing KV blocks. */
class AdmissionIT {

    private static final String STUCK_CHAT = "{\"model\":\"stuck\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"max_tokens\":5";

    @TempDir
    static Path dir;
    private static TestWorker worker;

    @BeforeAll
    static void start() {
        worker = new TestWorker(dir);
    }

    @AfterAll
    static void stop() {
        worker.close();
    }

    /** A model whose generation never produces anything: requests hold their permit until cancelled or timed out. */
    private static ModelEndpoint stuck() {
        ModelEndpoint real = worker.endpoint;
        return new ModelEndpoint(request -> Flux.<TokenChunk>never(), real.tokenizer(), real.template(), ContextLength.fixed(512), false);
    }

    private static void await(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("timed out waiting for " + what).isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    private static String gauge(GatewayServer server, String name) {
        for (String line : server.metrics().scrape().split("\n")) {
            if (line.startsWith(name + " ")) {
                return line.substring(name.length() + 1);
            }
        }
        return "";
    }

    @Test
    void requestsBeyondTheInFlightLimitAndQueueGet503() throws Exception {
        GatewayConfig config = GatewayConfig.loopback().withLimits(new GatewayConfig.Limits(1, 1, Duration.ofMinutes(5), 1 << 20));
        try (GatewayServer server = GatewayServer.start(config, Map.of("stuck", stuck()))) {
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            URI uri = URI.create("http://127.0.0.1:" + server.httpPort() + "/v1/chat/completions");
            HttpRequest held = HttpRequest.newBuilder(uri).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(STUCK_CHAT + "}")).build();
            CompletableFuture<HttpResponse<String>> first = client.sendAsync(held, HttpResponse.BodyHandlers.ofString());
            await(() -> gauge(server, "squall_gateway_requests_in_flight").equals("1.0"), "the first request to run");
            CompletableFuture<HttpResponse<String>> second = client.sendAsync(held, HttpResponse.BodyHandlers.ofString());
            await(() -> gauge(server, "squall_gateway_requests_queued").equals("1.0"), "the second request to queue");
            Http http = Http.to(server);
            OpenAiHttpIT.assertError(http.post("/v1/chat/completions", STUCK_CHAT + "}"), 503, "overloaded");
            OpenAiHttpIT.assertError(http.post("/v1/chat/completions", STUCK_CHAT + ",\"stream\":true}"), 503, "overloaded");
            first.cancel(true);
            second.cancel(true);
        }
    }

    @Test
    void requestsThatOutliveTheTimeoutGet504OrAnErrorEvent() throws Exception {
        GatewayConfig config = GatewayConfig.loopback().withLimits(new GatewayConfig.Limits(4, 4, Duration.ofMillis(300), 1 << 20));
        try (GatewayServer server = GatewayServer.start(config, Map.of("stuck", stuck()))) {
            Http http = Http.to(server);
            OpenAiHttpIT.assertError(http.post("/v1/chat/completions", STUCK_CHAT + "}"), 504, "timeout");
            HttpResponse<String> streamed = http.post("/v1/chat/completions", STUCK_CHAT + ",\"stream\":true}");
            assertThat(streamed.statusCode()).isEqualTo(200);
            assertThat(Http.sseData(streamed.body())).hasSize(2).last().isEqualTo("[DONE]");
            assertThat(Http.sseData(streamed.body()).getFirst()).contains("\"code\":\"timeout\"");
            await(() -> gauge(server, "squall_gateway_requests_in_flight").equals("0.0"), "permits to be released");
        }
    }

    @Test
    void aClientDisconnectCancelsGenerationAndFreesTheWorkersBlocks() throws Exception {
        try (GatewayServer server = GatewayServer.start(GatewayConfig.loopback(), Map.of("demo", worker.endpoint))) {
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.httpPort() + "/v1/completions"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"demo\",\"prompt\":\"go\",\"max_tokens\":2000,"
                            + "\"ignore_eos\":true,\"stream\":true}")).build();
            HttpResponse<InputStream> response = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
            BufferedReader reader = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8));
            int events = 0;
            while (events < 3) {
                String line = reader.readLine();
                assertThat(line).isNotNull();
                if (line.startsWith("data:")) {
                    events++;
                }
            }
            assertThat(worker.idle()).isFalse();
            reader.close();
            await(worker::idle, "the worker to free the sequence's blocks");
            await(() -> server.metrics().scrape().contains(
                    "squall_gateway_client_disconnects_total{route=\"completions\",model=\"demo\",} 1.0"), "the disconnect metric");
            assertThat(server.metrics().scrape()).contains("squall_gateway_generation_cancellations_total{reason=\"disconnect\",} 1.0");
        }
    }
}
