package io.squall.examples.clients;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.FinishReason;
import io.squall.functions.engine.batch.BatchConfig;
import io.squall.functions.engine.batch.BatchScheduler;
import io.squall.functions.engine.model.Architecture;
import io.squall.functions.engine.model.Model;
import io.squall.functions.engine.model.RandomModel;
import io.squall.functions.engine.model.Transformer;
import io.squall.functions.engine.tokenizer.Tokenizers;
import io.squall.functions.worker.kv.KvConfig;
import io.squall.functions.worker.kv.KvEventSink;
import io.squall.functions.worker.local.SchedulerGenerateService;
import io.squall.gateway.ContextLength;
import io.squall.gateway.GatewayConfig;
import io.squall.gateway.GatewayServer;
import io.squall.gateway.ModelEndpoint;
import io.squall.kernels.GgmlType;
import io.squall.kernels.Kernels;
import io.squall.kvgrid.WorkerId;
import io.squall.kvgrid.metrics.KvStats;
import io.squall.functions.engine.batch.KvPool;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Both clients against a real gateway in this JVM (HTTP on Micronaut, RSocket over WebSocket on the same port and
 * over TCP), serving a small random-weight model written by Squall's GGUF writer: each streams exactly the text the
 * gateway answers the same greedy request with over plain HTTP.
 */
class ClientsIT {

    private static final String KEY = "sk-clients";
    private static final String MODEL = "demo";
    private static final int MAX_TOKENS = 12;
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;
    private static Model model;
    private static Kernels kernels;
    private static KvPool kv;
    private static BatchScheduler scheduler;
    private static GatewayServer gateway;

    @BeforeAll
    static void start() {
        Path file = dir.resolve("demo.gguf");
        RandomModel.write(new RandomModel.Spec(Architecture.QWEN2, new RandomModel.Shape(64, 2, 4, 2, 96, 1024),
                GgmlType.Q8_0, null, 11), file);
        model = Model.load(file);
        kernels = Kernels.best();
        kv = KvConfig.inMemory(256).open(model.config().kvLayout(16), new WorkerId(1), KvEventSink.DISCARD, KvStats.NONE);
        scheduler = new BatchScheduler(new Transformer(model.config(), model.weights(), kernels, 1024),
                BatchConfig.defaults(), Tokenizers.fromGguf(model.metadata())::isEndOfGeneration, kv);
        gateway = GatewayServer.start(GatewayConfig.loopback().withSecurity(new GatewayConfig.Security(List.of(KEY), null, null)),
                Map.of(MODEL, ModelEndpoint.fromGguf(model.metadata(), new SchedulerGenerateService(scheduler),
                        ContextLength.fixed(scheduler.maxSequenceTokens()))));
    }

    @AfterAll
    static void stop() {
        gateway.close();
        scheduler.close();
        kv.close();
        kernels.close();
        model.close();
    }

    @Test
    void theRSocketClientStreamsTheGatewaysAnswerOverWebSocketAndTcp() throws Exception {
        String expected = httpAnswer("Hello there");
        assertThat(expected).as("the model says something").isNotEmpty();
        for (URI url : List.of(URI.create("ws://127.0.0.1:" + gateway.httpPort() + "/rsocket"),
                URI.create("tcp://127.0.0.1:" + gateway.rsocketTcpPort()))) {
            try (RSocketChatClient client = RSocketChatClient.connect(url, KEY)) {
                List<String> pieces = client.chat(MODEL, "Hello there", MAX_TOKENS).collectList().block(Duration.ofSeconds(60));
                assertThat(pieces).as("streamed in pieces over %s", url).hasSizeGreaterThan(1);
                assertThat(String.join("", pieces)).as("over %s", url).isEqualTo(expected);
            }
        }
    }

    @Test
    void theLangChain4jAppStreamsAStoryThroughTheOpenAiApi() throws Exception {
        String expected = httpAnswer("Tell me a short story about a lighthouse keeper.");
        List<String> pieces = new CopyOnWriteArrayList<>();
        StoryApp app = new StoryApp("http://127.0.0.1:" + gateway.httpPort() + "/v1", KEY, MODEL, MAX_TOKENS);
        ChatResponse response = app.tell("a lighthouse keeper", pieces::add).get(60, TimeUnit.SECONDS);
        assertThat(String.join("", pieces)).isEqualTo(expected).isEqualTo(response.aiMessage().text());
        assertThat(response.tokenUsage().outputTokenCount()).isPositive().isLessThanOrEqualTo(MAX_TOKENS);
        assertThat(response.finishReason()).isIn(FinishReason.LENGTH, FinishReason.STOP);
    }

    /** The gateway's non-streamed greedy answer to one user message, over plain HTTP. */
    private static String httpAnswer(String message) throws Exception {
        String body = JSON.writeValueAsString(Map.of("model", MODEL, "max_tokens", MAX_TOKENS, "temperature", 0,
                "messages", List.of(Map.of("role", "user", "content", message))));
        try (HttpClient http = HttpClient.newHttpClient()) {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + gateway.httpPort() + "/v1/chat/completions"))
                    .header("Authorization", "Bearer " + KEY).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
            JsonNode json = JSON.readTree(response.body());
            return json.path("choices").path(0).path("message").path("content").asText();
        }
    }
}
