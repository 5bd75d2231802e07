package io.squall.cli.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

/**
 * The workers' gauges a soak follows, scraped from their {@code /metrics}: KV pages held by sequences
 * ({@code squall_worker_kv_blocks_total} − {@code squall_worker_kv_blocks_free}) and running sequences, summed
 * over the workers. Thread-safe.
 */
final class WorkerGauges {

    /** The sums over the workers. */
    record Reading(long kvPagesInUse, long runningSequences) {
    }

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final List<URI> metrics;

    /** @param metrics each worker's {@code /metrics} address */
    WorkerGauges(List<URI> metrics) {
        this.metrics = List.copyOf(metrics);
    }

    Reading read() throws IOException, InterruptedException {
        long pages = 0;
        long running = 0;
        for (URI uri : metrics) {
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IOException(uri + " answered " + response.statusCode());
            }
            String text = response.body();
            pages += gauge(text, "squall_worker_kv_blocks_total") - gauge(text, "squall_worker_kv_blocks_free");
            running += gauge(text, "squall_worker_running_sequences");
        }
        return new Reading(pages, running);
    }

    /** The value of the unlabelled sample {@code name} in Prometheus text. */
    static long gauge(String text, String name) {
        for (String line : text.split("\n")) {
            if (line.startsWith(name + " ")) {
                return Math.round(Double.parseDouble(line.substring(name.length() + 1).trim()));
            }
        }
        throw new IllegalStateException("no " + name + " in the worker's metrics");
    }
}
