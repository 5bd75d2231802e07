package io.squall.scheduler;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

/**
 * How the planner sizes a graph.
 *
 * @param pools              the graph's pools and each one's replica bounds: {@link Pool#AGGREGATED} alone, or
 *                           {@link Pool#PREFILL} and {@link Pool#DECODE}
 * @param budget             most workers in all pools together
 * @param interval           how often it decides, in the planner's time
 * @param slo                the latency targets (SLA mode)
 * @param mode               {@link Mode#SLA} sizes from a profile; {@link Mode#LOAD} from KV usage and queues
 * @param predictor          the load predictor: {@code constant}, {@code moving-average} or {@code kalman}
 * @param scaleDownIntervals intervals in a row a pool must want fewer workers before it gets them
 */
public record PlannerConfig(Map<Pool, Bounds> pools, int budget, Duration interval, Slo slo, Mode mode,
                            String predictor, int scaleDownIntervals) {

    /** Sizing by profile and latency targets, or by load thresholds when no profile exists. */
    public enum Mode { SLA, LOAD }

    /**
     * Latency targets in milliseconds, time to first token and time between tokens, and the share of requests whose
     * TTFT the prefill sizing keeps within its target (0.9: the 90th percentile).
     */
    public record Slo(double ttftMs, double itlMs, double quantile) {
        public Slo {
            if (!(ttftMs > 0) || !(itlMs > 0)) {
                throw new IllegalArgumentException("TTFT and ITL targets must be positive milliseconds");
            }
            if (!(quantile >= 0.5 && quantile < 1)) {
                throw new IllegalArgumentException("the SLO quantile must be in [0.5, 1), got " + quantile);
            }
        }

        /** Targets at the 90th percentile. */
        public Slo(double ttftMs, double itlMs) {
            this(ttftMs, itlMs, 0.9);
        }
    }

    /** Most and fewest workers of one pool. */
    public record Bounds(int min, int max) {
        public Bounds {
            if (min < 0 || max < 1 || min > max) {
                throw new IllegalArgumentException("pool bounds need 0 <= min <= max and max >= 1, got " + min + ".." + max);
            }
        }
    }

    public PlannerConfig {
        Objects.requireNonNull(interval, "interval");
        Objects.requireNonNull(slo, "slo");
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(predictor, "predictor");
        pools = new EnumMap<>(pools);
        boolean aggregated = pools.containsKey(Pool.AGGREGATED);
        boolean disaggregated = pools.containsKey(Pool.PREFILL) || pools.containsKey(Pool.DECODE);
        if (aggregated == disaggregated || disaggregated && pools.size() != 2) {
            throw new IllegalArgumentException("a graph is one aggregated pool, or a prefill and a decode pool; got "
                    + pools.keySet());
        }
        int minimum = pools.values().stream().mapToInt(Bounds::min).sum();
        if (budget < Math.max(1, minimum)) {
            throw new IllegalArgumentException("the worker budget " + budget + " is below the pools' minimums (" + minimum + ")");
        }
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("the planning interval must be positive");
        }
        if (scaleDownIntervals < 1) {
            throw new IllegalArgumentException("scale-down needs at least one interval");
        }
        pools = Map.copyOf(pools);
    }

    public boolean disaggregated() {
        return pools.containsKey(Pool.DECODE);
    }
}
