package io.squall.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * The training workload of the AOT cache ({@code squall serve --warmup-and-exit}): the requests a fresh stage
 * answers first, sent to the gateway this process serves: probes, metrics, a streamed chat completion and a plain
 * completion. What they load and compile is what the cache then holds for a cold start.
 */
final class Warmup {

    private static final Duration TIMEOUT = Duration.ofMinutes(5);

    private Warmup() {
    }

    /** Sends the requests to the gateway at {@code base} for {@code model}; fails if one is not answered 200. */
    static void exercise(URI base, String model) {
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build()) {
            send(http, HttpRequest.newBuilder(base.resolve("/readyz")).GET());
            send(http, HttpRequest.newBuilder(base.resolve("/metrics")).GET());
            for (int round = 0; round < 3; round++) {
                post(http, base.resolve("/v1/chat/completions"), "{\"model\":\"" + model + "\",\"stream\":true,\"max_tokens\":24,"
                        + "\"messages\":[{\"role\":\"user\",\"content\":\"Tell me a story about a cat, round " + round + ".\"}]}");
                post(http, base.resolve("/v1/completions"), "{\"model\":\"" + model + "\",\"max_tokens\":16,\"temperature\":0,"
                        + "\"prompt\":\"Once upon a time, round " + round + "\"}");
            }
        }
    }

    private static void post(HttpClient http, URI uri, String json) {
        send(http, HttpRequest.newBuilder(uri).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    private static void send(HttpClient http, HttpRequest.Builder request) {
        try {
            HttpResponse<String> response = http.send(request.timeout(TIMEOUT).build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException("warm-up request " + response.request().uri() + " answered "
                        + response.statusCode() + ": " + response.body());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("warm-up request failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during the warm-up", e);
        }
    }
}
