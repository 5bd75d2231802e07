package io.squall.cli.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.squall.functions.api.CacheSources;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Streams chat completions (or, for a token prompt, completions) from an OpenAI-compatible server over HTTP/1.1 and
 * times the SSE chunks as they arrive, reading them on the calling thread ({@link StreamingHttpClient}); the untimed
 * probes use {@code java.net.http}. Sends two extensions Squall honours: {@code "ignore_eos": true}, so every
 * request generates exactly {@code max_tokens}, and {@code "return_routing": true}, so the usage chunk says which
 * worker served the request and how much of its prompt the router believed that worker held.
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
        this(base, model, apiKey, Duration.ofMinutes(30));
    }

    /**
     * As {@link #HttpTarget(URI, String, String)}, giving up on a response that sends nothing for {@code readTimeout}
     * (the request fails with a {@link java.net.SocketTimeoutException}).
     */
    public HttpTarget(URI base, String model, String apiKey, Duration readTimeout) {
        this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
        this.streams = new StreamingHttpClient(base, Duration.ofSeconds(10), readTimeout);
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
        if (request.isTokens()) {
            ArrayNode prompt = body.putArray("prompt");
            for (int id : request.prompt()) {
                prompt.add(id);
            }
        } else {
            body.set("messages", JSON.valueToTree(request.messages()));
        }
        body.put("max_tokens", request.maxTokens());
        body.put("ignore_eos", true);
        body.put("return_routing", true);
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
            HttpResponse<String> response = client.send(request(path(probe))
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
        try (StreamingHttpClient.Response response = streams.post(base.resolve(path(request)).getRawPath(),
                streamHeaders, body(request, true))) {
            if (response.status() != 200) {
                StringBuilder text = new StringBuilder();
                for (String line; (line = response.readLine()) != null; ) {
                    text.append(line).append('\n');
                }
                String body = text.toString().strip();
                return Outcome.failed(System.nanoTime() - start, errorType(body), "HTTP " + response.status() + ": " + body);
            }
            return read(response, start);
        } catch (IOException | RuntimeException e) {
            return Outcome.failed(System.nanoTime() - start, e.toString());
        }
    }

    /**
     * The token ids of {@code messages} rendered by the model's chat template, from the server's {@code /tokenize}
     * (vLLM's extension, which Squall serves).
     */
    @Override
    public int[] tokenize(List<Map<String, String>> messages) {
        ObjectNode body = JSON.createObjectNode();
        body.set("messages", JSON.valueToTree(messages));
        return tokenize(body);
    }

    @Override
    public int[] tokenizeText(String text) {
        ObjectNode body = JSON.createObjectNode();
        body.put("prompt", text);
        return tokenize(body);
    }

    private int[] tokenize(ObjectNode body) {
        body.put("model", model);
        JsonNode tokens = postJson("/tokenize", body).path("tokens");
        int[] ids = new int[tokens.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = tokens.get(i).asInt();
        }
        return ids;
    }

    private JsonNode postJson(String path, ObjectNode body) {
        try {
            HttpResponse<String> response = client.send(request(path).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException("POST " + path + " answered " + response.statusCode() + ": " + response.body());
            }
            return JSON.readTree(response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String path(BenchRequest request) {
        return request.isTokens() ? "/v1/completions" : "/v1/chat/completions";
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
        Outcome.Served served = Outcome.Served.UNKNOWN;
        StringBuilder text = new StringBuilder();
        for (String line; (line = response.readLine()) != null; ) {
            if (!line.startsWith("data:")) {
                continue;
            }
            String data = line.substring(5).strip();
            if (data.equals("[DONE]")) {
                return new Outcome(ttft, itl.toArray(), System.nanoTime() - start, tokens, text.toString(), null, served);
            }
            JsonNode chunk = JSON.readTree(data);
            if (chunk.has("error")) {
                JsonNode error = chunk.get("error");
                return Outcome.failed(System.nanoTime() - start, error.path("type").textValue(), error.path("message").asText());
            }
            JsonNode choice = chunk.path("choices").path(0);
            String content = choice.has("text") ? choice.path("text").asText("") : choice.path("delta").path("content").asText("");
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
                JsonNode usage = chunk.path("usage");
                tokens = usage.path("completion_tokens").asInt();
                JsonNode route = chunk.path("routing").path(0);
                served = new Outcome.Served(usage.path("prompt_tokens").asInt(-1),
                        usage.path("prompt_tokens_details").path("cached_tokens").asInt(-1),
                        route.path("worker").isTextual() ? route.path("worker").textValue() : null,
                        route.path("overlap_blocks").asInt(-1), route.path("migrations").asInt(0), byTier(usage));
            }
        }
        return Outcome.failed(System.nanoTime() - start, "the stream ended without [DONE]");
    }

    /** The {@code error.type} of an OpenAI error body, or null when the body is not one. */
    static String errorType(String body) {
        try {
            return JSON.readTree(body).path("error").path("type").textValue();
        } catch (IOException e) {
            return null;
        }
    }

    /** Squall's split of the usage's cached tokens by tier ({@code cached_tokens_by_tier}), or null without one. */
    static CacheSources byTier(JsonNode usage) {
        JsonNode tiers = usage.path("prompt_tokens_details").path("cached_tokens_by_tier");
        return tiers.isObject() ? new CacheSources(tiers.path("g1").asInt(), tiers.path("g2").asInt(),
                tiers.path("g3").asInt(), tiers.path("remote").asInt()) : null;
    }
}
