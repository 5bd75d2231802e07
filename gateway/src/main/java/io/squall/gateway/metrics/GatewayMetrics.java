package io.squall.gateway.metrics;

import io.prometheus.client.CollectorRegistry;
import io.squall.functions.api.CacheSources;
import io.squall.functions.api.TokenChunk;
import io.squall.functions.stage.StageEndpoints;
import io.squall.functions.discovery.traffic.TrafficRecorder;
import io.prometheus.client.Counter;
import io.prometheus.client.Collector;
import io.prometheus.client.GaugeMetricFamily;
import io.prometheus.client.Histogram;

import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntSupplier;

/**
 * The gateway's Prometheus metrics, in a registry of its own so several gateways can share a JVM. Names
 * carry the {@code squall_gateway_} prefix and base units (seconds, tokens). Thread-safe.
 */
public final class GatewayMetrics {

    private static final double[] LATENCY_BUCKETS = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
            1, 2.5, 5, 10, 30, 60, 120};
    private static final double[] TOKEN_BUCKETS = {1, 8, 32, 128, 512, 1024, 2048, 4096, 8192, 16384, 32768, 131072};

    private final CollectorRegistry registry = new CollectorRegistry(true);
    private final Counter requests = Counter.build("squall_gateway_requests_total",
                    "Requests by route, model and HTTP status (499: the client went away).")
            .labelNames("route", "model", "status").register(registry);
    private final Histogram ttft = Histogram.build("squall_gateway_time_to_first_token_seconds",
                    "Time from receiving a request to sending its first generated text.")
            .labelNames("model").buckets(LATENCY_BUCKETS).register(registry);
    private final Histogram itl = Histogram.build("squall_gateway_inter_token_latency_seconds",
                    "Time between successive text deltas of one request.")
            .labelNames("model").buckets(LATENCY_BUCKETS).register(registry);
    private final Histogram duration = Histogram.build("squall_gateway_request_duration_seconds",
                    "Time from receiving a request to its end.")
            .labelNames("route", "model").buckets(LATENCY_BUCKETS).register(registry);
    private final Histogram inputTokens = Histogram.build("squall_gateway_input_tokens",
                    "Prompt tokens per request.")
            .labelNames("model").buckets(TOKEN_BUCKETS).register(registry);
    private final Histogram outputTokens = Histogram.build("squall_gateway_output_tokens",
                    "Generated tokens per request, all choices together.")
            .labelNames("model").buckets(TOKEN_BUCKETS).register(registry);
    private final Counter cachedTokens = Counter.build("squall_gateway_cached_tokens_total",
                    "Prompt tokens whose KV a worker reused.")
            .labelNames("model").register(registry);
    private final Counter cachedTokensByTier = Counter.build("squall_gateway_cached_tokens_by_tier_total",
                    "Prompt tokens whose KV a worker reused, by the tier they came from (g1, g2, g3, remote).")
            .labelNames("model", "tier").register(registry);
    private final Counter disconnects = Counter.build("squall_gateway_client_disconnects_total",
                    "Requests whose client went away before the response ended; their generation was cancelled.")
            .labelNames("route", "model").register(registry);
    private final Counter routed = Counter.build("squall_router_decisions_total",
                    "Generations the router sent to each worker (a migrated one counts where it ended).")
            .labelNames("model", "worker").register(registry);
    private final Histogram overlap = Histogram.build("squall_router_overlap_blocks",
                    "Leading prompt blocks the KV-aware router believed the chosen worker held.")
            .labelNames("model").buckets(0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096).register(registry);
    private final Counter migrations = Counter.build("squall_router_migrations_total",
                    "Times a generation moved to another worker after losing its own.")
            .labelNames("model").register(registry);
    private final Counter cancellations = Counter.build("squall_gateway_generation_cancellations_total",
                    "Worker generations the gateway cancelled, by reason (stop_string, disconnect, timeout, error).")
            .labelNames("reason").register(registry);

    private final TrafficRecorder traffic = new TrafficRecorder("gateway-" + Long.toHexString(
            ThreadLocalRandom.current().nextLong() >>> 1));

    /**
     * @param inFlight requests holding an in-flight permit
     * @param queued   requests waiting for one
     */
    public GatewayMetrics(IntSupplier inFlight, IntSupplier queued) {
        gauge("squall_gateway_requests_in_flight", "Requests running now.", inFlight);
        gauge("squall_gateway_requests_queued", "Requests waiting for an in-flight permit.", queued);
    }

    private void gauge(String name, String help, IntSupplier value) {
        new Collector() {
            @Override
            public List<MetricFamilySamples> collect() {
                return List.of(new GaugeMetricFamily(name, help, value.getAsInt()));
            }
        }.register(registry);
    }

    /** This gateway's traffic as planners read it (published by whoever runs the gateway in a cluster). */
    public TrafficRecorder traffic() {
        return traffic;
    }

    /** The registry, to expose or to add collectors to. */
    public CollectorRegistry registry() {
        return registry;
    }

    /** The Prometheus text exposition (format 0.0.4) of every metric. */
    public String scrape() {
        return StageEndpoints.prometheus(registry);
    }

    /** An accepted generation request began (it will end in {@link #request}). */
    public void started() {
        traffic.requestStarted();
    }

    public void request(String route, String model, int status, double seconds) {
        requests.labels(route, model, Integer.toString(status)).inc();
        duration.labels(route, model).observe(seconds);
        if (status >= 500) {
            traffic.requestFailed();
        }
    }

    public void timeToFirstToken(String model, double seconds) {
        ttft.labels(model).observe(seconds);
        traffic.timeToFirstToken(seconds);
    }

    public void interTokenLatency(String model, double seconds) {
        itl.labels(model).observe(seconds);
        traffic.interTokenLatency(seconds);
    }

    /** Records a finished request's token counts; the split of its cached tokens by tier when it has one. */
    public void tokens(String model, TokenChunk.Usage usage) {
        inputTokens.labels(model).observe(usage.promptTokens());
        outputTokens.labels(model).observe(usage.completionTokens());
        cachedTokens.labels(model).inc(usage.cachedTokens());
        traffic.requestFinished(usage.promptTokens(), usage.completionTokens(), usage.cachedTokens());
        CacheSources sources = usage.sources();
        if (sources != null) {
            cachedTokensByTier.labels(model, "g1").inc(sources.g1());
            cachedTokensByTier.labels(model, "g2").inc(sources.g2());
            cachedTokensByTier.labels(model, "g3").inc(sources.g3());
            cachedTokensByTier.labels(model, "remote").inc(sources.remote());
        }
    }

    /**
     * Where the router sent one generation: {@code worker} ({@code ns/component/endpoint/instance}),
     * {@code overlapBlocks} the cache overlap it saw (negative when its policy keeps no KV index), {@code moves}
     * how often the generation migrated.
     */
    public void routed(String model, String worker, int overlapBlocks, int moves) {
        routed.labels(model, worker).inc();
        if (overlapBlocks >= 0) {
            overlap.labels(model).observe(overlapBlocks);
        }
        if (moves > 0) {
            migrations.labels(model).inc(moves);
        }
    }

    public void disconnect(String route, String model) {
        disconnects.labels(route, model).inc();
        cancellations.labels("disconnect").inc();
    }

    /** A generation cancelled by the gateway: {@code stop_string}, {@code timeout} or {@code error}. */
    public void cancellation(String reason) {
        cancellations.labels(reason).inc();
    }
}
