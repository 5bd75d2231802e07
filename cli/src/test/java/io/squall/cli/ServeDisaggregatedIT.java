package io.squall.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.squall.functions.discovery.FreePorts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code squall serve --prefill-workers 1 --decode-workers 1} as a separate process: completions stream
 * through the gateway to the decode worker, whose prompts the prefill worker computed and pushed; the
 * text is what {@code squall run} generates in one process.
 */
class ServeDisaggregatedIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static final String PROMPT = "Once upon a time there was a little girl who lived in a village near the"
            + " forest. Whenever she went out, the little girl wore a red riding cloak";
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void completionsStreamEndToEndThroughAPrefillAndADecodeWorker() throws Exception {
        Path model = dir.resolve("m.gguf");
        Process generated = squall(List.of("gen-model", "--arch", "llama", "--dim", "64", "--layers", "2", "--heads", "4",
                "--ffn", "96", "--out", model.toString()), dir.resolve("gen.out"), dir.resolve("gen.err"));
        assertThat(generated.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(generated.exitValue()).as(Files.readString(dir.resolve("gen.err"))).isZero();
        Process run = squall(List.of("run", "--model", model.toString(), "--prompt", PROMPT, "--max-tokens", "6",
                "--temperature", "0", "--json"), dir.resolve("run.out"), dir.resolve("run.err"));
        assertThat(run.waitFor(120, TimeUnit.SECONDS)).isTrue();
        String expected = JSON.readTree(Files.readString(dir.resolve("run.out"))).get("text").asText();

        int[] ports = FreePorts.of("127.0.0.1", 4);
        int http = ports[0];
        Path err = dir.resolve("serve.err");
        Process serve = squall(List.of("serve", "--model", model.toString(), "--prefill-workers", "1", "--decode-workers", "1",
                "--disagg-min-tokens", "16", "--http-port", String.valueOf(http), "--rsocket-port", String.valueOf(ports[1]),
                "--rsocket-ws-port", String.valueOf(ports[2]), "--grid-port", String.valueOf(ports[3])),
                dir.resolve("serve.out"), err);
        try {
            awaitTrue(() -> status(http, "/v1/models") == 200, serve);
            // round robin over every generate-serving worker: a prefill worker among them would fail one of these
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http
                                + "/v1/completions"))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(JSON.createObjectNode()
                                .put("model", "m").put("prompt", PROMPT).put("max_tokens", 6).put("temperature", 0)
                                .put("stream", true))))
                        .timeout(TIMEOUT).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
                assertThat(text(response.body())).isEqualTo(expected);
                assertThat(response.body().strip()).endsWith("data: [DONE]");
            }
            String log = Files.readString(err, StandardCharsets.UTF_8);
            // the first prompt is prefilled remotely; its repeats hit the decode worker's own prefix cache
            assertThat(metric(port(log, "decode"), "squall_worker_remote_prefills_total")).isEqualTo(1);
            assertThat(metric(port(log, "prefill"), "squall_worker_kv_blocks_pushed_total")).isPositive();
        } finally {
            serve.destroy();
            assertThat(serve.waitFor(60, TimeUnit.SECONDS)).isTrue();
        }
    }

    /** The completion's text: the {@code text} of every SSE chunk, in order. */
    private static String text(String sse) throws IOException {
        StringBuilder text = new StringBuilder();
        for (String line : sse.lines().toList()) {
            if (line.startsWith("data: {")) {
                JsonNode chunk = JSON.readTree(line.substring("data: ".length()));
                text.append(chunk.get("choices").get(0).get("text").asText());
            }
        }
        return text.toString();
    }

    /** The HTTP port of the worker with {@code role}, from its start-up log line. */
    private static int port(String log, String role) {
        Matcher matcher = Pattern.compile("\\(" + role + "\\) listening: http [0-9.]+:(\\d+)").matcher(log);
        assertThat(matcher.find()).as("a %s worker logged its ports", role).isTrue();
        return Integer.parseInt(matcher.group(1));
    }

    private static double metric(int port, String name) throws IOException, InterruptedException {
        String body = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).timeout(TIMEOUT)
                .build(), HttpResponse.BodyHandlers.ofString()).body();
        Matcher matcher = Pattern.compile("(?m)^" + Pattern.quote(name) + " (\\S+)$").matcher(body);
        assertThat(matcher.find()).as("%s on :%d", name, port).isTrue();
        return Double.parseDouble(matcher.group(1));
    }

    private static int status(int port, String path) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(TIMEOUT).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1; // not listening yet
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static Process squall(List<String> args, Path out, Path err) throws IOException {
        List<String> command = SquallJar.command(args);
        return new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    }

    private static void awaitTrue(BooleanSupplier condition, Process process) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(process.isAlive()).as("squall serve is running").isTrue();
            assertThat(System.nanoTime()).as("condition within %s", TIMEOUT).isLessThan(deadline);
            Thread.onSpinWait();
        }
    }
}
