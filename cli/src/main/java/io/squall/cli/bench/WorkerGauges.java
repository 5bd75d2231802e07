package io.squall.cli.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The workers' gauges a soak or a chaos run follows, scraped from their {@code /metrics}: KV pages held by sequences
 * ({@code squall_worker_kv_blocks_total} − {@code squall_worker_kv_blocks_free}) and running sequences, and the
 * traffic of their G3 disk tier, summed over the workers. Thread-safe.
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

    /**
     * The G3 disk tier, summed over the workers.
     *
     * @param blocks  blocks it holds now
     * @param read    blocks read back from it into G1 so far (verified ones only)
     * @param written blocks copied into it so far
     * @param refused copies it refused so far (its writes failed)
     * @param discarded copies that failed verification when read (for this worker or a peer) and were dropped so far
     */
    record Disk(long blocks, long read, long written, long refused, long discarded) {
    }

    Reading read() throws IOException, InterruptedException {
        long pages = 0;
        long running = 0;
        for (URI uri : metrics) {
            String text = scrape(uri);
            pages += gauge(text, "squall_worker_kv_blocks_total") - gauge(text, "squall_worker_kv_blocks_free");
            running += gauge(text, "squall_worker_running_sequences");
        }
        return new Reading(pages, running);
    }

    Disk disk() throws IOException, InterruptedException {
        long blocks = 0;
        long read = 0;
        long written = 0;
        long refused = 0;
        long discarded = 0;
        for (URI uri : metrics) {
            for (String line : scrape(uri).split("\n")) {
                if (line.startsWith("squall_kv_blocks{tier=\"G3\"")) {
                    blocks += value(line);
                } else if (line.startsWith("squall_kv_block_onboards_total{from=\"G3\"")) {
                    read += value(line);
                } else if (line.startsWith("squall_kv_block_offloads_total{") && line.contains("to=\"G3\"")) {
                    written += value(line);
                } else if (line.startsWith("squall_kv_block_offload_failures_total{to=\"G3\"")) {
                    refused += value(line);
                } else if (line.startsWith("squall_kv_block_discarded_total{tier=\"G3\"")) {
                    discarded += value(line);
                }
            }
        }
        return new Disk(blocks, read, written, refused, discarded);
    }

    /**
     * Every sample whose name starts with {@code prefix} (but the {@code _created} times simpleclient adds to
     * counters), by its name and labels as the text gives them, summed over the workers.
     */
    Map<String, Long> samples(String prefix) throws IOException, InterruptedException {
        Map<String, Long> samples = new TreeMap<>();
        for (URI uri : metrics) {
            for (String line : scrape(uri).split("\n")) {
                if (line.startsWith(prefix) && !line.contains("_created")) { // a creation time, not a count
                    samples.merge(line.substring(0, line.lastIndexOf(' ')), value(line), Long::sum);
                }
            }
        }
        return samples;
    }

    private String scrape(URI uri) throws IOException, InterruptedException {
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException(uri + " answered " + response.statusCode());
        }
        return response.body();
    }

    /** The value of a Prometheus text sample line, {@code name{labels} value}. */
    private static long value(String line) {
        return Math.round(Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1).trim()));
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
