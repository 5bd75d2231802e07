package io.squall.kvgrid.metrics.prometheus;

import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.Counter;
import io.prometheus.client.Gauge;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.metrics.KvStats;
import java.util.Objects;

/**
 * {@link KvStats} as Prometheus metrics, registered in the registry passed in (never the global
 * default, so each pool or test has its own). Counts are blocks or tokens, as each name says;
 * the prefix hit rate is {@code squall_kv_prefix_matched_tokens_total / squall_kv_prefix_lookup_tokens_total}.
 * Thread-safe (simpleclient children are).
 *
 * <ul>
 *   <li>{@code squall_kv_blocks{tier}} — gauge, blocks holding data</li>
 *   <li>{@code squall_kv_block_allocations_total} — G1 blocks handed out</li>
 *   <li>{@code squall_kv_block_evictions_total{tier}}</li>
 *   <li>{@code squall_kv_block_offloads_total{from,to}}, {@code squall_kv_block_onboards_total{from,to}}</li>
 *   <li>{@code squall_kv_block_offloads_dropped_total} — evicted blocks that lost the lower-tier copy the
 *       policy wanted (the tiers could not keep up); {@code squall_kv_offload_stall_seconds_total} — time the
 *       pool waited for the offload lane instead (backpressure); {@code squall_kv_offload_pending_blocks} —
 *       copies queued on the write lane; {@code squall_kv_block_offload_failures_total{to}} — copies a tier
 *       refused (a disk full, gone or read-only); {@code squall_kv_block_discarded_total{tier}} — copies that
 *       failed verification when read (a corrupt file) and were dropped</li>
 *   <li>{@code squall_kv_prefix_lookup_tokens_total}, {@code squall_kv_prefix_matched_tokens_total{tier}} — prompt
 *       tokens looked up at admission, and served from G1, G2, G3 or G4 (another worker, or the grid)</li>
 * </ul>
 */
public final class PrometheusKvStats implements KvStats {

    private final Gauge blocks;
    private final Counter allocations;
    private final Counter evictions;
    private final Counter offloads;
    private final Counter offloadsDropped;
    private final Counter offloadFailures;
    private final Counter offloadStall;
    private final Gauge offloadsPending;
    private final Counter onboards;
    private final Counter discarded;
    private final Counter lookupTokens;
    private final Counter matchedTokens;

    /** Registers the metrics; fails if {@code registry} already has them. */
    public PrometheusKvStats(CollectorRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        blocks = Gauge.build("squall_kv_blocks", "KV blocks holding data, by tier.")
                .labelNames("tier").register(registry);
        allocations = Counter.build("squall_kv_block_allocations_total", "G1 KV blocks handed out.")
                .register(registry);
        evictions = Counter.build("squall_kv_block_evictions_total", "KV blocks evicted, by tier.")
                .labelNames("tier").register(registry);
        offloads = Counter.build("squall_kv_block_offloads_total", "KV blocks copied down a tier.")
                .labelNames("from", "to").register(registry);
        offloadsDropped = Counter.build("squall_kv_block_offloads_dropped_total",
                "Evicted KV blocks that lost their lower-tier copy because the tiers could not keep up.").register(registry);
        offloadFailures = Counter.build("squall_kv_block_offload_failures_total",
                "KV block copies down a tier that failed (the tier refused the write: a disk full, gone or read-only), by tier.")
                .labelNames("to").register(registry);
        offloadStall = Counter.build("squall_kv_offload_stall_seconds_total",
                "Time the G1 pool waited for the offload lane to free a staging buffer.").register(registry);
        offloadsPending = Gauge.build("squall_kv_offload_pending_blocks",
                "KV block copies waiting on the offload write lane.").register(registry);
        onboards = Counter.build("squall_kv_block_onboards_total", "KV blocks copied back up a tier.")
                .labelNames("from", "to").register(registry);
        discarded = Counter.build("squall_kv_block_discarded_total",
                "KV block copies that failed verification when read (a corrupt file or entry) and were dropped, by tier.")
                .labelNames("tier").register(registry);
        lookupTokens = Counter.build("squall_kv_prefix_lookup_tokens_total",
                "Prompt tokens, in full blocks, looked up in the prefix cache at admission.").register(registry);
        matchedTokens = Counter.build("squall_kv_prefix_matched_tokens_total",
                "Prompt tokens served from the prefix cache, by the tier they came from (G4: another worker or the grid).").labelNames("tier").register(registry);
    }

    @Override
    public void blocks(Tier tier, long count) {
        blocks.labels(tier.name()).set(count);
    }

    @Override
    public void allocated(int count) {
        allocations.inc(count);
    }

    @Override
    public void evicted(Tier tier, int count) {
        evictions.labels(tier.name()).inc(count);
    }

    @Override
    public void offloaded(Tier from, Tier to, int count) {
        offloads.labels(from.name(), to.name()).inc(count);
    }

    @Override
    public void offloadDropped(int count) {
        offloadsDropped.inc(count);
    }

    @Override
    public void offloadFailed(Tier to, int count) {
        offloadFailures.labels(to.name()).inc(count);
    }

    @Override
    public void offloadStalled(long nanos) {
        offloadStall.inc(nanos / 1e9);
    }

    @Override
    public void offloadsPending(long count) {
        offloadsPending.set(count);
    }

    @Override
    public void onboarded(Tier from, Tier to, int count) {
        onboards.labels(from.name(), to.name()).inc(count);
    }

    @Override
    public void discarded(Tier tier, int count) {
        discarded.labels(tier.name()).inc(count);
    }

    @Override
    public void prefixLookup(long tokens) {
        lookupTokens.inc(tokens);
    }

    @Override
    public void prefixMatched(Tier tier, long tokens) {
        matchedTokens.labels(tier.name()).inc(tokens);
    }
}
