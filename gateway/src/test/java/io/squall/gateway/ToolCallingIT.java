package io.squall.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.output.FinishReason;
import io.squall.functions.engine.chat.ChatTemplate;
import io.squall.functions.engine.chat.SpecialTokens;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Tool calling and deterministic stop strings through the HTTP API, with scripted model output. */
class ToolCallingIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TOOLS_TEMPLATE = """
            {%- if tools -%}<|im_start|>system
            Tools: {{ tools | tojson }}<|im_end|>
            {% endif -%}
            {%- for m in messages -%}<|im_start|>{{ m.role }}
            {{ m.content }}<|im_end|>
            {% endfor -%}<|im_start|>assistant
            """;

    @TempDir
    static Path dir;
    private static TestWorker worker;
    private static GatewayServer server;
    private static Http http;

    @BeforeAll
    static void start() {
        worker = new TestWorker(dir);
        var tokenizer = worker.endpoint.tokenizer();
        ChatTemplate hermes = ChatTemplate.compile(TOOLS_TEMPLATE, new SpecialTokens("", "<|im_end|>"));
        server = GatewayServer.start(GatewayConfig.loopback(), Map.of(
                "hermes", new ModelEndpoint(new ScriptedService("Let me check.<tool_call>\n{\"name\": \"get_weather\", "
                        + "\"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"), tokenizer, hermes, ContextLength.fixed(512), false),
                "llama", new ModelEndpoint(new ScriptedService("<|python_tag|>{\"name\": \"get_weather\", \"parameters\": "
                        + "{\"city\": \"Oslo\"}}"), tokenizer, hermes, ContextLength.fixed(512), false),
                "plain", new ModelEndpoint(new ScriptedService("Grüße, wörld! END here"), tokenizer, worker.endpoint.template(),
                        ContextLength.fixed(512), false)));
        http = Http.to(server);
    }

    @AfterAll
    static void stop() {
        server.close();
        worker.close();
    }

    private static OpenAiChatModel client(String model) {
        return OpenAiChatModel.builder().baseUrl("http://127.0.0.1:" + server.httpPort() + "/v1").apiKey("unused")
                .modelName(model).build();
    }

    private static ChatRequest weatherRequest() {
        ToolSpecification weather = ToolSpecification.builder().name("get_weather").description("Weather in a city")
                .parameters(JsonObjectSchema.builder().addStringProperty("city").required("city").build()).build();
        return ChatRequest.builder().messages(List.of(UserMessage.from("Weather in Paris?"))).toolSpecifications(weather).build();
    }

    @Test
    void hermesToolCallsReachLangChain4j() {
        ChatResponse response = client("hermes").chat(weatherRequest());
        assertThat(response.finishReason()).isEqualTo(FinishReason.TOOL_EXECUTION);
        ToolExecutionRequest call = response.aiMessage().toolExecutionRequests().getFirst();
        assertThat(call.name()).isEqualTo("get_weather");
        assertThat(call.arguments()).isEqualTo("{\"city\":\"Paris\"}");
        assertThat(response.aiMessage().text()).isEqualTo("Let me check.");
    }

    @Test
    void llama3JsonToolCallsAreParsed() {
        ChatResponse response = client("llama").chat(weatherRequest());
        assertThat(response.aiMessage().toolExecutionRequests().getFirst().arguments()).isEqualTo("{\"city\":\"Oslo\"}");
    }

    @Test
    void streamedToolCallsArriveAsToolCallDeltas() throws Exception {
        String body = http.post("/v1/chat/completions", """
                {"model":"hermes","stream":true,"messages":[{"role":"user","content":"w?"}],
                 "tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object"}}}]}""").body();
        List<String> data = Http.sseData(body);
        JsonNode choice = JSON.readTree(data.get(data.size() - 2)).path("choices").path(0);
        assertThat(choice.path("finish_reason").asText()).isEqualTo("tool_calls");
        assertThat(choice.path("delta").path("tool_calls").path(0).path("function").path("name").asText()).isEqualTo("get_weather");
        assertThat(choice.path("delta").path("tool_calls").path(0).path("index").asInt()).isZero();
    }

    @Test
    void toolsAreRejectedWhenTheTemplateIgnoresThem() throws Exception {
        OpenAiHttpIT.assertError(http.post("/v1/chat/completions", """
                {"model":"plain","messages":[{"role":"user","content":"w?"}],
                 "tools":[{"type":"function","function":{"name":"f"}}]}"""), 400, null);
    }

    @Test
    void stopStringSpanningTokensAndMultiByteTextIsNeverPartlyShown() throws Exception {
        String body = http.post("/v1/chat/completions", """
                {"model":"plain","stream":true,"stop":["END","zzz"],"messages":[{"role":"user","content":"hi"}]}""").body();
        StringBuilder text = new StringBuilder();
        String finish = null;
        for (String data : Http.sseData(body)) {
            if (data.equals("[DONE]")) {
                break;
            }
            JsonNode choice = JSON.readTree(data).path("choices").path(0);
            String content = choice.path("delta").path("content").asText("");
            assertThat(content).doesNotContain("\uFFFD").doesNotEndWith("E").doesNotEndWith("EN");
            text.append(content);
            if (!choice.path("finish_reason").isNull()) {
                finish = choice.path("finish_reason").asText();
            }
        }
        assertThat(text.toString()).isEqualTo("Grüße, wörld! ");
        assertThat(finish).isEqualTo("stop");
    }
}
