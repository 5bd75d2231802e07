package io.squall.scheduler.metrics;

import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.Counter;
import io.prometheus.client.Gauge;
import io.squall.scheduler.Decision;
import io.squall.scheduler.observe.PoolLoad;
import io.squall.scheduler.observe.Traffic;

import java.util.Locale;
import java.util.function.Consumer;

/**
 * The planner's decisions as Prometheus metrics ({@code squall_planner_*}): what it observed and predicted, the
 * correction factors, and per pool the demand, desired, target, current and ready replicas. NaN where a figure
 * could not be measured. Thread-safe.
 */
public final class PlannerMetrics implements Consumer<Decision> {

    private final Gauge observed;
    private final Gauge predicted;
    private final Gauge correction;
    private final Gauge replicas;
    private final Gauge demand;
    private final Gauge poolLoad;
    private final Counter changes;

    public PlannerMetrics(CollectorRegistry registry) {
        observed = Gauge.build("squall_planner_observed", "What the last interval showed: request_rate (1/s), "
                + "input_tokens, output_tokens, cache_hit_ratio, ttft_seconds, ttft_p90_seconds, itl_seconds, "
                + "itl_p90_seconds.").labelNames("quantity").register(registry);
        predicted = Gauge.build("squall_planner_predicted", "The next interval's expected request_rate (1/s), "
                + "input_tokens and output_tokens.").labelNames("quantity").register(registry);
        correction = Gauge.build("squall_planner_correction_ratio", "Observed over expected latency, by stage "
                + "(prefill: TTFT, decode: ITL).").labelNames("stage").register(registry);
        replicas = Gauge.build("squall_planner_replicas", "Workers per pool: desired (what the load needs within "
                + "bounds), target (set), current (running), ready (serving).").labelNames("pool", "kind")
                .register(registry);
        demand = Gauge.build("squall_planner_demand_replicas", "Workers the predicted load needs, unrounded.")
                .labelNames("pool").register(registry);
        poolLoad = Gauge.build("squall_planner_pool_load", "Each pool's reported load: kv_usage (ratio), "
                + "active_sequences, queued_sequences.").labelNames("pool", "quantity").register(registry);
        changes = Counter.build("squall_planner_scaling_decisions_total", "Target changes, by pool and direction.")
                .labelNames("pool", "direction").register(registry);
    }

    @Override
    public void accept(Decision decision) {
        Traffic t = decision.observed().traffic();
        observed.labels("request_rate").set(t.requestsPerSecond());
        observed.labels("input_tokens").set(t.inputTokens());
        observed.labels("output_tokens").set(t.outputTokens());
        observed.labels("cache_hit_ratio").set(t.cacheHitRatio());
        observed.labels("ttft_seconds").set(t.ttftMs() / 1e3);
        observed.labels("ttft_p90_seconds").set(t.ttftP90Ms() / 1e3);
        observed.labels("itl_seconds").set(t.itlMs() / 1e3);
        observed.labels("itl_p90_seconds").set(t.itlP90Ms() / 1e3);
        Decision.Prediction p = decision.predicted();
        predicted.labels("request_rate").set(p.requestsPerSecond());
        predicted.labels("input_tokens").set(p.inputTokens());
        predicted.labels("output_tokens").set(p.outputTokens());
        correction.labels("prefill").set(p.prefillCorrection());
        correction.labels("decode").set(p.decodeCorrection());
        decision.pools().forEach((pool, plan) -> {
            String name = pool.name().toLowerCase(Locale.ROOT);
            double previous = replicas.labels(name, "target").get();
            replicas.labels(name, "desired").set(plan.desired());
            replicas.labels(name, "target").set(plan.target());
            replicas.labels(name, "current").set(plan.current());
            replicas.labels(name, "ready").set(plan.ready());
            demand.labels(name).set(plan.demand());
            PoolLoad load = decision.observed().pool(pool);
            poolLoad.labels(name, "kv_usage").set(load.kvUsage());
            poolLoad.labels(name, "active_sequences").set(load.activeSequences());
            poolLoad.labels(name, "queued_sequences").set(load.queuedSequences());
            if (plan.target() > previous) {
                changes.labels(name, "up").inc();
            } else if (plan.target() < previous) {
                changes.labels(name, "down").inc();
            }
        });
    }
}
