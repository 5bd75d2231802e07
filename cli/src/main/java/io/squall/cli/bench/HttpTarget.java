package io.squall.cli.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Streams chat completions from an OpenAI-compatible server over HTTP/1.1 and times the SSE chunks as they
 * arrive, reading them on the calling thread ({@link StreamingHttpClient}); the untimed probes use
 * {@code java.net.http}. Sends {@code "ignore_eos": true} (an extension Squall honours) so every request generates exactly
 * {@code max_tokens}.
 */
public final class HttpTarget implements Target {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient client;
    private final StreamingHttpClient streams;
    private final Map<String, String> streamHeaders;
    private final URI base;
    private final String model;
    private final String apiKey;

    /**
     * @param base   the server's root, e.g. {@code http://127.0.0.1:8000}
     * @param model  the model name; {@code auto} for the first that {@code /v1/models} lists
     * @param apiKey the API key, or null
     */
    public HttpTarget(URI base, String model, String apiKey) {
        this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
        this.streams = new StreamingHttpClient(base, Duration.ofSeconds(10), Duration.ofMinutes(30));
        this.base = base;
        this.apiKey = apiKey;
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/json");
        headers.put("Accept", "text/event-stream");
        if (apiKey != null) {
            headers.put("Authorization", "Bearer " + apiKey);
        }
        this.streamHeaders = Map.copyOf(headers);
        this.model = model.equals("auto") ? firstModel() : model;
    }

    /** The model requests go to. */
    public String model() {
        return model;
    }

    private HttpRequest.Builder request(String path) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofMinutes(30));
        if (apiKey != null) {
            builder.header("Authorization", "Bearer " + apiKey);
        }
        return builder;
    }

    private String firstModel() {
        try {
            HttpResponse<String> response = client.send(request("/v1/models").GET().build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException("GET /v1/models answered " + response.statusCode() + ": " + response.body());
            }
            JsonNode first = JSON.readTree(response.body()).path("data").path(0).path("id");
            if (!first.isTextual()) {
                throw new IllegalStateException(base + " lists no models");
            }
            return first.textValue();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot reach " + base, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private byte[] body(BenchRequest request, boolean stream) {
        ObjectNode body = JSON.createObjectNode();
        body.put("model", model);
        body.set("messages", JSON.valueToTree(request.messages()));
        body.put("max_tokens", request.maxTokens());
        body.put("ignore_eos", true);
        body.put("temperature", 0);
        if (stream) {
            body.put("stream", true);
            body.putObject("stream_options").put("include_usage", true);
        }
        try {
            return JSON.writeValueAsBytes(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public int promptTokens(BenchRequest probe) {
        try {
            HttpResponse<String> response = client.send(request("/v1/chat/completions")
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body(new BenchRequest(probe.messages(), 1), false))).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException("probe request answered " + response.statusCode() + ": " + response.body());
            }
            return JSON.readTree(response.body()).path("usage").path("prompt_tokens").asInt();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public Outcome send(BenchRequest request) {
        long start = System.nanoTime();
        try (StreamingHttpClient.Response response = streams.post(base.resolve("/v1/chat/completions").getRawPath(),
                streamHeaders, body(request, true))) {
            if (response.status() != 200) {
                StringBuilder text = new StringBuilder();
                for (String line; (line = response.readLine()) != null; ) {
                    text.append(line).append('\n');
                }
                return Outcome.failed(System.nanoTime() - start, "HTTP " + response.status() + ": " + text.toString().strip());
            }
            return read(response, start);
        } catch (IOException | RuntimeException e) {
            return Outcome.failed(System.nanoTime() - start, e.toString());
        }
    }

    @Override
    public void close() {
        streams.close();
    }

    private static Outcome read(StreamingHttpClient.Response response, long start) throws IOException {
        long ttft = -1;
        long last = 0;
        LongList itl = new LongList();
        int tokens = 0;
        StringBuilder text = new StringBuilder();
        for (String line; (line = response.readLine()) != null; ) {
            if (!line.startsWith("data:")) {
                continue;
            }
            String data = line.substring(5).strip();
            if (data.equals("[DONE]")) {
                return new Outcome(ttft, itl.toArray(), System.nanoTime() - start, tokens, text.toString(), null);
            }
            JsonNode chunk = JSON.readTree(data);
            if (chunk.has("error")) {
                return Outcome.failed(System.nanoTime() - start, chunk.get("error").path("message").asText());
            }
            String content = chunk.path("choices").path(0).path("delta").path("content").asText("");
            if (!content.isEmpty()) {
                long now = System.nanoTime();
                if (ttft < 0) {
                    ttft = now - start;
                } else {
                    itl.add(now - last);
                }
                last = now;
                text.append(content);
            }
            if (chunk.path("usage").isObject()) {
                tokens = chunk.path("usage").path("completion_tokens").asInt();
            }
        }
        return Outcome.failed(System.nanoTime() - start, "the stream ended without [DONE]");
    }
}
