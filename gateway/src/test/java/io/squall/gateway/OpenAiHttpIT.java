package io.squall.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import dev.langchain4j.model.output.FinishReason;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The OpenAI HTTP API on loopback, driven by LangChain4j's OpenAI client and raw HTTP, over real generation. */
class OpenAiHttpIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String MODEL = "demo";

    @TempDir
    static Path dir;
    private static TestWorker worker;
    private static GatewayServer server;
    private static Http http;

    @BeforeAll
    static void start() {
        worker = new TestWorker(dir);
        server = GatewayServer.start(GatewayConfig.loopback(), Map.of(MODEL, worker.endpoint));
        http = Http.to(server);
    }

    @AfterAll
    static void stop() {
        server.close();
        worker.close();
    }

    private static String baseUrl() {
        return "http://127.0.0.1:" + server.httpPort() + "/v1";
    }

    private static JsonNode json(String text) throws Exception {
        return JSON.readTree(text);
    }

    @Test
    void langChain4jChatGetsTextUsageAndLengthFinish() {
        OpenAiChatModel model = OpenAiChatModel.builder().baseUrl(baseUrl()).apiKey("unused").modelName(MODEL)
                .maxTokens(8).temperature(0.0).build();
        ChatResponse response = model.chat(UserMessage.from("Hello there"));
        assertThat(response.aiMessage().text()).isNotNull();
        assertThat(response.tokenUsage().outputTokenCount()).isEqualTo(8);
        assertThat(response.tokenUsage().inputTokenCount()).isGreaterThan(10);
        assertThat(response.finishReason()).isEqualTo(FinishReason.LENGTH);
    }

    @Test
    void langChain4jStreamingMatchesTheNonStreamedGreedyText() throws Exception {
        OpenAiChatModel blocking = OpenAiChatModel.builder().baseUrl(baseUrl()).apiKey("unused").modelName(MODEL)
                .maxTokens(12).temperature(0.0).build();
        String expected = blocking.chat(UserMessage.from("Count to three")).aiMessage().text();

        OpenAiStreamingChatModel streaming = OpenAiStreamingChatModel.builder().baseUrl(baseUrl()).apiKey("unused")
                .modelName(MODEL).maxTokens(12).temperature(0.0).build();
        StringBuilder partial = new StringBuilder();
        CompletableFuture<ChatResponse> done = new CompletableFuture<>();
        streaming.chat(List.of(UserMessage.from("Count to three")), new StreamingChatResponseHandler() {
            @Override
            public void onPartialResponse(String text) {
                partial.append(text);
            }

            @Override
            public void onCompleteResponse(ChatResponse response) {
                done.complete(response);
            }

            @Override
            public void onError(Throwable error) {
                done.completeExceptionally(error);
            }
        });
        ChatResponse response = done.get(60, TimeUnit.SECONDS);
        assertThat(partial.toString()).isEqualTo(expected);
        assertThat(response.aiMessage().text()).isEqualTo(expected);
        assertThat(response.finishReason()).isEqualTo(FinishReason.LENGTH);
    }

    @Test
    void aRepeatedPromptReportsItsCachedTokensByTierInUsageAndMetrics() throws Exception {
        String body = """
                {"model":"demo","messages":[{"role":"user","content":"%s"}],"max_tokens":2,"temperature":0}"""
                .formatted("the returning conversation resends its whole history ".repeat(6));
        JsonNode first = json(http.post("/v1/chat/completions", body).body()).path("usage").path("prompt_tokens_details");
        JsonNode again = json(http.post("/v1/chat/completions", body).body()).path("usage").path("prompt_tokens_details");

        assertThat(first.path("cached_tokens_by_tier").isObject()).isTrue();
        int cached = again.path("cached_tokens").asInt();
        assertThat(cached).as("the prompt's full blocks, kept in G1").isGreaterThanOrEqualTo(16);
        JsonNode tiers = again.path("cached_tokens_by_tier");
        assertThat(tiers.path("g1").asInt()).isEqualTo(cached);
        assertThat(tiers.path("g2").asInt() + tiers.path("g3").asInt() + tiers.path("remote").asInt()).isZero();
        assertThat(http.get("/metrics").body())
                .contains("squall_gateway_cached_tokens_by_tier_total{model=\"demo\",tier=\"g1\",}");
    }

    @Test
    void streamIsSseChunksEndingWithUsageAndDone() throws Exception {
        HttpResponse<String> response = http.post("/v1/chat/completions", """
                {"model":"demo","messages":[{"role":"user","content":[{"type":"text","text":"Hi"}]}],
                 "max_tokens":5,"temperature":0,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}""");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/event-stream"));
        assertThat(response.body()).contains("data: {").endsWith("data: [DONE]\n\n");
        List<String> data = Http.sseData(response.body());
        assertThat(data.getLast()).isEqualTo("[DONE]");
        JsonNode first = json(data.getFirst());
        assertThat(first.path("object").asText()).isEqualTo("chat.completion.chunk");
        assertThat(first.path("choices").path(0).path("delta").path("role").asText()).isEqualTo("assistant");
        JsonNode usage = json(data.get(data.size() - 2));
        assertThat(usage.path("choices")).isEmpty();
        assertThat(usage.path("usage").path("completion_tokens").asInt()).isEqualTo(5);
        assertThat(usage.path("usage").path("prompt_tokens_details").has("cached_tokens")).isTrue();
        JsonNode last = json(data.get(data.size() - 3));
        assertThat(last.path("choices").path(0).path("finish_reason").asText()).isEqualTo("length");
    }

    @Test
    void stopStringEndsTheChoiceWithoutShowingIt() throws Exception {
        String prompt = "{\"model\":\"demo\",\"prompt\":\"abc\",\"max_tokens\":40,\"temperature\":0,\"ignore_eos\":true";
        JsonNode free = json(http.post("/v1/completions", prompt + "}").body());
        String text = free.path("choices").path(0).path("text").asText();
        assertThat(text.length()).isGreaterThan(6);
        String stop = text.substring(3, 5);
        int cut = text.indexOf(stop);
        JsonNode stopped = json(http.post("/v1/completions", prompt + ",\"stop\":[" + JSON.writeValueAsString(stop) + "]}").body());
        assertThat(stopped.path("choices").path(0).path("text").asText()).isEqualTo(text.substring(0, cut));
        assertThat(stopped.path("choices").path(0).path("finish_reason").asText()).isEqualTo("stop");
        assertThat(stopped.path("usage").path("completion_tokens").asInt()).isLessThan(40);
    }

    @Test
    void completionsWithSeveralChoicesAndLogprobs() throws Exception {
        HttpResponse<String> response = http.post("/v1/completions", """
                {"model":"demo","prompt":["one","two"],"n":2,"max_tokens":3,"logprobs":2,"seed":9,"temperature":0.8}""");
        assertThat(response.statusCode()).isEqualTo(200);
        JsonNode body = json(response.body());
        assertThat(body.path("object").asText()).isEqualTo("text_completion");
        assertThat(body.path("choices")).hasSize(4);
        for (JsonNode choice : body.path("choices")) {
            assertThat(choice.path("logprobs").path("tokens")).hasSize(3);
            // Alternatives are keyed by their text; two invalid-UTF-8 byte tokens share "\uFFFD".
            assertThat(choice.path("logprobs").path("top_logprobs").path(0).size()).isBetween(1, 2);
        }
        assertThat(body.path("usage").path("completion_tokens").asInt()).isEqualTo(12);
    }

    @Test
    void echoStartsEachChoiceWithItsPromptStreamedOrNot() throws Exception {
        String request = "{\"model\":\"demo\",\"prompt\":%s,\"max_tokens\":4,\"temperature\":0,\"ignore_eos\":true%s}";
        String prompt = "Hello there";
        JsonNode plain = json(http.post("/v1/completions", request.formatted(JSON.writeValueAsString(prompt), "")).body());
        String generated = plain.path("choices").path(0).path("text").asText();

        JsonNode echoed = json(http.post("/v1/completions",
                request.formatted(JSON.writeValueAsString(prompt), ",\"echo\":true,\"n\":2")).body());
        assertThat(echoed.path("choices")).hasSize(2);
        for (JsonNode choice : echoed.path("choices")) {
            assertThat(choice.path("text").asText()).isEqualTo(prompt + generated);
        }
        assertThat(echoed.path("usage").path("completion_tokens").asInt()).isEqualTo(8);

        List<String> data = Http.sseData(http.post("/v1/completions",
                request.formatted(JSON.writeValueAsString(prompt), ",\"echo\":true,\"stream\":true")).body());
        assertThat(json(data.getFirst()).path("choices").path(0).path("text").asText()).isEqualTo(prompt);
        StringBuilder streamed = new StringBuilder();
        for (String event : data.subList(0, data.size() - 1)) {
            streamed.append(json(event).path("choices").path(0).path("text").asText());
        }
        assertThat(streamed.toString()).isEqualTo(prompt + generated);

        int[] ids = worker.endpoint.tokenizer().encode(prompt, io.squall.functions.engine.tokenizer.EncodeOptions.TEXT);
        JsonNode fromIds = json(http.post("/v1/completions", request.formatted(JSON.writeValueAsString(ids),
                ",\"echo\":true")).body());
        assertThat(fromIds.path("choices").path(0).path("text").asText()).startsWith(prompt);

        assertError(http.post("/v1/completions", request.formatted(JSON.writeValueAsString(prompt),
                ",\"echo\":true,\"logprobs\":1")), 400, null);
    }

    @Test
    void chatLogprobsHaveTheOpenAiShape() throws Exception {
        JsonNode body = json(http.post("/v1/chat/completions", """
                {"model":"demo","messages":[{"role":"system","content":"s"},{"role":"user","content":"u"}],
                 "max_completion_tokens":2,"logprobs":true,"top_logprobs":3,"ignore_eos":true}""").body());
        JsonNode content = body.path("choices").path(0).path("logprobs").path("content");
        assertThat(content).hasSize(2);
        assertThat(content.path(0).path("top_logprobs")).hasSize(3);
        assertThat(content.path(0).path("bytes").isArray()).isTrue();
    }

    @Test
    void logitBiasBansOrForcesTokens() throws Exception {
        String request = """
                {"model":"demo","messages":[{"role":"user","content":"bias"}],"max_tokens":4,"temperature":0,
                 "logprobs":true%s}""";
        JsonNode first = json(http.post("/v1/chat/completions", request.formatted("")).body())
                .path("choices").path(0).path("logprobs").path("content").path(0);
        assertThat(first.path("bytes")).as("the demo vocabulary has one token per byte, token id = byte").hasSize(1);
        int firstId = first.path("bytes").path(0).asInt();

        JsonNode banned = json(http.post("/v1/chat/completions",
                request.formatted(",\"logit_bias\":{\"" + firstId + "\":-100}")).body());
        assertThat(banned.path("choices").path(0).path("logprobs").path("content").path(0).path("bytes").path(0).asInt())
                .isNotEqualTo(firstId);

        JsonNode forced = json(http.post("/v1/chat/completions",
                request.formatted(",\"logit_bias\":{\"" + (int) 'z' + "\":100}")).body());
        assertThat(forced.path("choices").path(0).path("message").path("content").asText()).isEqualTo("zzzz");

        assertError(http.post("/v1/chat/completions", request.formatted(",\"logit_bias\":{\"x\":1}")), 400, null);
        assertError(http.post("/v1/chat/completions", request.formatted(",\"logit_bias\":{\"5\":101}")), 400, null);
        assertError(http.post("/v1/chat/completions", request.formatted(",\"logit_bias\":{\"999999\":1}")), 400, null);
    }

    @Test
    void modelsListsTheDemoModelAsRandomWeights() throws Exception {
        JsonNode body = json(http.get("/v1/models").body());
        assertThat(body.path("data").path(0).path("id").asText()).isEqualTo(MODEL);
        assertThat(body.path("data").path(0).path("owned_by").asText()).contains("random weights");
        assertThat(body.path("data").path(0).path("random_weights").asBoolean()).isTrue();
    }

    @Test
    void errorsAreOpenAiObjectsWithTheRightStatus() throws Exception {
        assertError(http.post("/v1/chat/completions", "{\"model\":\"nope\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}"),
                404, "model_not_found");
        assertError(http.post("/v1/chat/completions", "{\"model\":\"demo\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],"
                + "\"max_tokens\":100000}"), 400, "context_length_exceeded");
        assertError(http.post("/v1/chat/completions", "{\"model\":\"demo\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],"
                + "\"response_format\":{\"type\":\"json_object\"}}"), 400, null);
        assertError(http.post("/v1/chat/completions", "{\"model\":\"demo\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],"
                + "\"temperature\":\"hot\"}"), 400, null);
        assertError(http.post("/v1/chat/completions", "{\"model\":\"demo\""), 400, "invalid_json");
        assertError(http.post("/v1/completions", new byte[5 << 20]), 413, "request_too_large");
        assertError(http.get("/v1/nothing"), 404, "unknown_url");
        assertError(http.get("/v1/chat/completions"), 405, "method_not_allowed");
    }

    @Test
    void unknownFieldsAreTolerated() {
        HttpResponse<String> response = http.post("/v1/chat/completions", """
                {"model":"demo","messages":[{"role":"user","content":"x","extra":1}],"max_tokens":1,
                 "user":"u-1","some_future_field":{"a":[1,2]}}""");
        assertThat(response.statusCode()).isEqualTo(200);
    }

    @Test
    void opsEndpointsAnswer() throws Exception {
        assertThat(http.get("/health").statusCode()).isEqualTo(200);
        assertThat(http.get("/live").statusCode()).isEqualTo(200);
        assertThat(json(http.get("/openapi.json").body()).path("paths").has("/v1/chat/completions")).isTrue();
        http.post("/v1/completions", "{\"model\":\"demo\",\"prompt\":\"m\",\"max_tokens\":2}");
        String metrics = http.get("/metrics").body();
        assertThat(metrics).contains("squall_gateway_requests_total{route=\"completions\",model=\"demo\",status=\"200\",}")
                .contains("squall_gateway_time_to_first_token_seconds_bucket")
                .contains("squall_gateway_requests_in_flight")
                .doesNotContain("squall_gateway_client_disconnects_total{");
    }

    static void assertError(HttpResponse<String> response, int status, String code) throws Exception {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        JsonNode error = JSON.readTree(response.body()).path("error");
        assertThat(error.path("message").asText()).isNotBlank();
        assertThat(error.path("type").asText()).isNotBlank();
        assertThat(error.has("param")).isTrue();
        if (code != null) {
            assertThat(error.path("code").asText()).isEqualTo(code);
        }
    }
}
