package io.squall.gateway;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** A small HTTP/1.1 client for tests, every call bounded by a timeout so a hang fails the test. */
final class Http {

    static final Duration TIMEOUT = Duration.ofSeconds(60);

    private final HttpClient client;
    private final String base;

    Http(HttpClient client, String base) {
        this.client = client;
        this.base = base;
    }

    static Http to(GatewayServer server) {
        return new Http(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(TIMEOUT).build(),
                "http://127.0.0.1:" + server.httpPort());
    }

    HttpResponse<String> get(String path, String... headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path)).timeout(TIMEOUT).GET();
        if (headers.length > 0) {
            request.headers(headers);
        }
        return send(request.build());
    }

    HttpResponse<String> post(String path, String json, String... headers) {
        return post(path, json.getBytes(StandardCharsets.UTF_8), headers);
    }

    HttpResponse<String> post(String path, byte[] body, String... headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path)).timeout(TIMEOUT)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (headers.length > 0) {
            request.headers(headers);
        }
        return send(request.build());
    }

    private HttpResponse<String> send(HttpRequest request) {
        try {
            return client.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The {@code data:} payloads of an SSE body, in order. */
    static List<String> sseData(String body) {
        List<String> data = new ArrayList<>();
        for (String event : body.split("\n\n")) {
            for (String line : event.split("\n")) {
                if (line.startsWith("data:")) {
                    data.add(line.substring(5).strip());
                }
            }
        }
        return data;
    }
}
