package io.squall.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Thousands of malformed and hostile requests: every answer is a 4xx (or a 200 when the mutation happens to be
 * valid) with an OpenAI error object, never a 5xx or a hang, and a well-formed request in between still works.
 */
class FuzzIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int CASES = 3000;
    private static final String VALID_CHAT = """
            {"model":"demo","messages":[{"role":"system","content":"s"},{"role":"user","content":"hi"}],
             "max_tokens":1,"max_completion_tokens":1,"temperature":0.5,"top_p":0.9,"n":1,"stop":["x"],"seed":1,
             "presence_penalty":0,"frequency_penalty":0,"stream":false,"user":"u"}""";
    private static final String VALID_COMPLETION = """
            {"model":"demo","prompt":"hi","max_tokens":1,"temperature":0,"n":1,"logprobs":1,"stream":false}""";
    private static final String[] FIELDS = {"model", "messages", "max_tokens", "max_completion_tokens", "temperature",
            "top_p", "n", "stop", "seed", "presence_penalty", "frequency_penalty", "logprobs", "top_logprobs", "stream",
            "stream_options", "tools", "tool_choice", "response_format", "prompt", "logit_bias", "best_of", "echo",
            "ignore_eos", "top_k", "min_p"};

    @TempDir
    static Path dir;
    private static TestWorker worker;
    private static GatewayServer server;
    private static Http http;

    @BeforeAll
    static void start() {
        worker = new TestWorker(dir);
        server = GatewayServer.start(GatewayConfig.loopback(), Map.of("demo", worker.endpoint));
        http = Http.to(server);
    }

    @AfterAll
    static void stop() {
        server.close();
        worker.close();
    }

    @Test
    void hostileRequestsGetJsonErrorsAndNeverBreakTheServer() throws Exception {
        long seed = System.nanoTime();
        System.out.println("FuzzIT seed " + seed);
        Random random = new Random(seed);
        List<Supplier<byte[]>> generators = List.of(
                () -> randomBytes(random),
                () -> invalidUtf8(random),
                () -> deepNesting(random),
                () -> wrongType(random, VALID_CHAT),
                () -> wrongType(random, VALID_COMPLETION),
                () -> missingField(random, VALID_CHAT),
                () -> truncated(random, VALID_CHAT),
                () -> hostileMessages(random));
        for (int i = 0; i < CASES; i++) {
            byte[] body = generators.get(random.nextInt(generators.size())).get();
            String path = random.nextBoolean() ? "/v1/chat/completions" : "/v1/completions";
            HttpResponse<String> response = http.post(path, body);
            String context = "seed " + seed + " case " + i + " " + path + " body " + new String(body, StandardCharsets.UTF_8);
            assertThat(response.statusCode()).as(context).isLessThan(500);
            if (response.statusCode() != 200) {
                assertThat(response.statusCode()).as(context).isBetween(400, 499);
                JsonNode error = JSON.readTree(response.body()).path("error");
                assertThat(error.path("message").isTextual()).as(context).isTrue();
                assertThat(error.path("type").isTextual()).as(context).isTrue();
            }
            if (i % 250 == 0) {
                HttpResponse<String> valid = http.post("/v1/chat/completions", VALID_CHAT);
                assertThat(valid.statusCode()).as(valid.body()).isEqualTo(200);
                assertThat(JSON.readTree(valid.body()).path("choices")).hasSize(1);
            }
        }
    }

    private static byte[] randomBytes(Random random) {
        byte[] bytes = new byte[random.nextInt(300)];
        random.nextBytes(bytes);
        return bytes;
    }

    private static byte[] invalidUtf8(Random random) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes("{\"model\":\"demo\",\"max_tokens\":1,\"messages\":[{\"role\":\"user\",\"content\":\"".getBytes(StandardCharsets.UTF_8));
        byte[][] bad = {{(byte) 0xC3}, {(byte) 0xFF, (byte) 0xFE}, {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
                {(byte) 0xF8, (byte) 0x88, (byte) 0x80, (byte) 0x80, (byte) 0x80}, {(byte) 0xC0, (byte) 0xAF}};
        out.writeBytes(bad[random.nextInt(bad.length)]);
        out.writeBytes("\"}]}".getBytes(StandardCharsets.UTF_8));
        return out.toByteArray();
    }

    private static byte[] deepNesting(Random random) {
        int depth = 50 + random.nextInt(20000);
        String open = random.nextBoolean() ? "[" : "{\"a\":";
        String close = open.equals("[") ? "]" : "}";
        return ("{\"model\":\"demo\",\"messages\":" + open.repeat(depth) + "1" + close.repeat(depth) + "}")
                .getBytes(StandardCharsets.UTF_8);
    }

    private static Object hostileValue(Random random) {
        Object[] values = {"", "x".repeat(random.nextInt(5000)), -1, 0, 1e308, -1e308, Long.MAX_VALUE, Integer.MIN_VALUE,
                3.5, true, false, null, List.of(), List.of(1, "a", List.of()), Map.of(), Map.of("type", "json_object"),
                Map.of("include_usage", "yes"), List.of(Map.of("role", 5)), List.of(Map.of("role", "user")),
                List.of(Map.of("role", "user", "content", List.of(Map.of("type", "image_url")))), "\u0000\uFFFF",
                new java.math.BigInteger("9".repeat(60)), List.of(-5, 1_000_000), Map.of("1", 2)};
        return values[random.nextInt(values.length)];
    }

    private static byte[] wrongType(Random random, String valid) {
        try {
            ObjectNode node = (ObjectNode) JSON.readTree(valid);
            node.set(FIELDS[random.nextInt(FIELDS.length)], JSON.valueToTree(hostileValue(random)));
            node.put("max_tokens", 1);
            return JSON.writeValueAsBytes(node);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] missingField(Random random, String valid) {
        try {
            ObjectNode node = (ObjectNode) JSON.readTree(valid);
            node.remove(List.of("model", "messages").get(random.nextInt(2)));
            return JSON.writeValueAsBytes(node);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] truncated(Random random, String valid) {
        byte[] bytes = valid.getBytes(StandardCharsets.UTF_8);
        return java.util.Arrays.copyOf(bytes, random.nextInt(bytes.length));
    }

    private static byte[] hostileMessages(Random random) {
        String[] messages = {
                "[{\"role\":\"assistant\",\"content\":null}]",
                "[{\"role\":\"tool\",\"content\":\"x\"}]",
                "[{\"role\":\"assistant\",\"tool_calls\":[{\"function\":{\"name\":\"f\",\"arguments\":\"[1]\"}}]}]",
                "[{\"role\":\"user\",\"content\":\"{% raise %}\"}]",
                "[{\"role\":\"user\",\"content\":[{\"type\":\"text\"}]}]",
                "[{\"role\":\"wizard\",\"content\":\"x\"}]",
                "[{\"role\":\"user\",\"content\":\"x\"},{\"role\":\"user\",\"content\":{\"a\":1}}]",
                "[]", "\"hello\"", "[null]"};
        return ("{\"model\":\"demo\",\"max_tokens\":1,\"messages\":" + messages[random.nextInt(messages.length)] + "}")
                .getBytes(StandardCharsets.UTF_8);
    }
}
