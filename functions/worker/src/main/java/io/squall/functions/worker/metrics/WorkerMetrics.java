package io.squall.functions.worker.metrics;

import io.prometheus.client.Collector;
import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.Counter;
import io.prometheus.client.CounterMetricFamily;
import io.prometheus.client.GaugeMetricFamily;
import io.prometheus.client.Histogram;
import io.squall.functions.engine.batch.BatchStats;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * A stage's Prometheus metrics, registered into a registry the caller owns (one per stage, so several
 * stages can share a process): {@code squall_worker_requests_total},
 * {@code squall_worker_request_errors_total{code}}, {@code squall_worker_time_to_first_token_seconds},
 * {@code squall_worker_inter_token_latency_seconds}, and from the scheduler's stats
 * {@code squall_worker_running_sequences}, {@code squall_worker_waiting_sequences},
 * {@code squall_worker_kv_blocks_free}, {@code squall_worker_kv_blocks_total},
 * {@code squall_worker_generated_tokens_total}, {@code squall_worker_prompt_tokens_computed_total} and
 * {@code squall_worker_preemptions_total}; for disaggregated prefill
 * {@code squall_worker_remote_prefills_total}, {@code squall_worker_remote_prefill_fallbacks_total{reason}},
 * {@code squall_worker_kv_blocks_pushed_total} and {@code squall_worker_kv_blocks_received_total}. Thread-safe.
 */
public final class WorkerMetrics {

    /** The prefix of a worker's metrics. */
    private static final String PREFIX = "squall_worker";

    private final Counter requests;
    private final Counter errors;
    private final Histogram timeToFirstToken;
    private final Histogram interTokenLatency;
    private final Counter remotePrefills;
    private final Counter remotePrefillFallbacks;
    private final Counter kvBlocksPushed;
    private final Counter kvBlocksReceived;
    private final AtomicReference<Supplier<BatchStats>> stats = new AtomicReference<>();

    public WorkerMetrics(CollectorRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        requests = Counter.build(PREFIX + "_requests_total", "Generate requests received.").create();
        errors = Counter.build(PREFIX + "_request_errors_total", "Generate requests that ended in an error, by error code.")
                .labelNames("code").create();
        timeToFirstToken = Histogram.build(PREFIX + "_time_to_first_token_seconds",
                        "Time from a request's arrival to its first token.")
                .buckets(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30).create();
        interTokenLatency = Histogram.build(PREFIX + "_inter_token_latency_seconds",
                        "Time between consecutive tokens of a stream.")
                .buckets(0.005, 0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56).create();
        remotePrefills = Counter.build(PREFIX + "_remote_prefills_total",
                "Prompts a decode worker handed to a prefill worker.").create();
        remotePrefillFallbacks = Counter.build(PREFIX + "_remote_prefill_fallbacks_total",
                "Remote prefills abandoned for a local prefill, by reason.").labelNames("reason").create();
        kvBlocksPushed = Counter.build(PREFIX + "_kv_blocks_pushed_total", "KV blocks a prefill worker pushed.").create();
        kvBlocksReceived = Counter.build(PREFIX + "_kv_blocks_received_total",
                "Pushed KV blocks a decode worker wrote into reserved pages.").create();
        registry.register(remotePrefills);
        registry.register(remotePrefillFallbacks);
        registry.register(kvBlocksPushed);
        registry.register(kvBlocksReceived);
        registry.register(requests);
        registry.register(errors);
        registry.register(timeToFirstToken);
        registry.register(interTokenLatency);
        registry.register(new StatsCollector());
    }

    /** Reads the scheduler's stats from now on; until then its gauges are absent. */
    public void observe(Supplier<BatchStats> scheduler) {
        stats.set(Objects.requireNonNull(scheduler, "scheduler"));
    }

    void requestStarted() {
        requests.inc();
    }

    void requestFailed(String code) {
        errors.labels(code).inc();
    }

    void firstToken(long nanos) {
        timeToFirstToken.observe(nanos / 1e9);
    }

    void interToken(long nanos) {
        interTokenLatency.observe(nanos / 1e9);
    }

    public void remotePrefillStarted() {
        remotePrefills.inc();
    }

    /** @param reason the fallback reason's label */
    public void remotePrefillFellBack(String reason) {
        remotePrefillFallbacks.labels(reason).inc();
    }

    public void kvBlocksPushed() {
        kvBlocksPushed.inc();
    }

    public void kvBlocksReceived() {
        kvBlocksReceived.inc();
    }

    /** Exposes the latest {@link BatchStats} snapshot at scrape time. */
    private final class StatsCollector extends Collector {
        @Override
        public List<MetricFamilySamples> collect() {
            Supplier<BatchStats> source = stats.get();
            if (source == null) {
                return List.of();
            }
            BatchStats s = source.get();
            return List.of(
                    new GaugeMetricFamily(PREFIX + "_running_sequences", "Sequences in the running batch.", s.running()),
                    new GaugeMetricFamily(PREFIX + "_waiting_sequences", "Sequences waiting for admission.", s.waiting()),
                    new GaugeMetricFamily(PREFIX + "_kv_blocks_free", "KV blocks not held by any sequence.", s.freeKvBlocks()),
                    new GaugeMetricFamily(PREFIX + "_kv_blocks_total", "KV blocks in the pool.", s.totalKvBlocks()),
                    new CounterMetricFamily(PREFIX + "_generated_tokens_total", "Tokens generated.", s.generatedTokens()),
                    new CounterMetricFamily(PREFIX + "_prompt_tokens_computed_total",
                            "Prompt tokens run through the model (the prefix cache served the others).", s.promptTokensComputed()),
                    new CounterMetricFamily(PREFIX + "_preemptions_total",
                            "Sequences preempted for lack of KV blocks (they recompute what G1 no longer holds).", s.preemptions()));
        }
    }
}
