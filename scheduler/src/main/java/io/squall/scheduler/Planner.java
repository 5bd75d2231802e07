package io.squall.scheduler;

import io.squall.scheduler.Decision.PoolPlan;
import io.squall.scheduler.Decision.Prediction;
import io.squall.scheduler.observe.Observation;
import io.squall.scheduler.observe.PoolLoad;
import io.squall.scheduler.observe.Traffic;
import io.squall.scheduler.predict.LoadPredictor;
import io.squall.scheduler.sizing.LoadSizer;
import io.squall.scheduler.sizing.PerformanceModel;
import io.squall.scheduler.sizing.SlaSizer;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

/**
 * The planner's decision rule, free of any cluster: each interval it takes an {@link Observation}, updates its
 * predictions of request rate, prompt and output length (one {@link LoadPredictor} each) and its correction factors
 * (observed over expected TTFT and ITL, smoothed and clamped, so a profile measured elsewhere still converges on
 * the targets here), sizes each pool ({@link SlaSizer} from the profile, or {@link LoadSizer} from load), bounds
 * it, and returns the targets in a {@link Decision}.
 *
 * <p>Scaling up takes effect at once; scaling down only once a pool has wanted fewer workers for
 * {@code scaleDownIntervals} intervals in a row, and then to the most it wanted among them, so a steady load never
 * oscillates and a dip does not drop capacity the next burst needs. Beyond the worker budget, pools are cut in
 * proportion to what they asked for (never below their minimum). Not thread-safe: one planner thread.
 */
public final class Planner {

    /** Weight of the newest interval in the smoothed correction factors and cache hit ratio. */
    private static final double SMOOTHING = 0.3;
    private static final double MIN_CORRECTION = 0.5;
    private static final double MAX_CORRECTION = 3.0;

    private final PlannerConfig config;
    private final SlaSizer sla;
    private final LoadSizer load;
    private final LoadPredictor rate;
    private final LoadPredictor input;
    private final LoadPredictor output;
    private double cacheHit = Double.NaN;
    private double prefillCv2 = Double.NaN;
    private double prefillCorrection = 1;
    private double decodeCorrection = 1;
    private final Map<Pool, Integer> targets = new EnumMap<>(Pool.class);
    private final Map<Pool, Deque<Integer>> wantedLess = new EnumMap<>(Pool.class);
    /** Per pool grown between intervals since the last decision: its target before the first growth. */
    private final Map<Pool, Integer> beforeUrgent = new EnumMap<>(Pool.class);
    /** Ready workers per pool at the last decision: latencies measured across a change do not correct the model. */
    private final Map<Pool, Integer> readyBefore = new EnumMap<>(Pool.class);

    /** @param model the profile's performance; required in SLA mode, ignored in load mode */
    public Planner(PlannerConfig config, PerformanceModel model) {
        this.config = Objects.requireNonNull(config, "config");
        if (config.mode() == PlannerConfig.Mode.SLA && model == null) {
            throw new IllegalArgumentException("SLA mode needs a profile; without one, use load mode");
        }
        this.sla = model == null ? null : new SlaSizer(model, config.slo());
        this.load = LoadSizer.defaults();
        this.rate = LoadPredictor.named(config.predictor());
        this.input = LoadPredictor.named(config.predictor());
        this.output = LoadPredictor.named(config.predictor());
        config.pools().keySet().forEach(pool -> wantedLess.put(pool, new ArrayDeque<>()));
    }

    /**
     * Decides the next interval's replicas.
     *
     * @param current each pool's replicas as the connector sees them now
     */
    public Decision plan(Observation observed, Map<Pool, Replicas> current) {
        Traffic traffic = observed.traffic();
        rate.observe(traffic.requestsPerSecond());
        input.observe(traffic.inputTokens());
        output.observe(traffic.outputTokens());
        cacheHit = smoothKnown(cacheHit, traffic.cacheHitRatio());
        prefillCv2 = smoothKnown(prefillCv2, traffic.prefillCv2());
        if (sla != null) {
            correct(observed);
        }
        // a predictor may foresee growth, never a drop below what the last interval carried: a trend fitted on a
        // falling load lags its turn, and shrinking already waits out the hysteresis
        double requests = Math.max(rate.predict(), traffic.requestsPerSecond());
        Prediction prediction = new Prediction(requests, input.predict(), output.predict(), cacheHit, prefillCv2,
                prefillCorrection, decodeCorrection);
        Map<Pool, Double> demand = new EnumMap<>(Pool.class);
        for (Pool pool : config.pools().keySet()) {
            demand.put(pool, demand(pool, prediction, observed.pool(pool)));
        }
        Map<Pool, PoolPlan> plans = settle(demand, current, observed);
        beforeUrgent.clear();
        config.pools().keySet().forEach(pool -> readyBefore.put(pool, observed.pool(pool).ready()));
        return new Decision(observed, prediction, plans);
    }

    /**
     * Between two intervals: grows a pool at once when the interval so far shows it short, so a burst does not wait
     * for the interval's end. Short means the pool's workers are full or queueing (the load-mode rule), or the
     * targets are being missed (p90 TTFT or ITL so far above them) and the traffic so far, sized as an interval's
     * would be (as observed, no prediction; lengths fall back on the predicted ones while no request has finished),
     * needs more workers than the target. A few seconds of traffic are too noisy to size from otherwise. A check at
     * most doubles a pool (a few seconds' rate of long prompts overstates the interval's), never shrinks one, and
     * leaves the predictors and corrections alone; the next interval's decision revises the growth if the interval
     * met its targets.
     *
     * @return the decision when a pool grows, else null
     */
    public Decision urgent(Observation soFar, Map<Pool, Replicas> current) {
        Traffic traffic = soFar.traffic();
        Prediction now = new Prediction(traffic.requestsPerSecond(), orElse(traffic.inputTokens(), input.predict()),
                orElse(traffic.outputTokens(), output.predict()), smoothKnown(cacheHit, traffic.cacheHitRatio()),
                smoothKnown(prefillCv2, traffic.prefillCv2()), prefillCorrection, decodeCorrection);
        boolean missing = traffic.ttftP90Ms() > config.slo().ttftMs() || traffic.itlP90Ms() > config.slo().itlMs();
        Map<Pool, PoolPlan> plans = new EnumMap<>(Pool.class);
        boolean grows = false;
        for (Pool pool : config.pools().keySet()) {
            PoolLoad workers = soFar.pool(pool);
            double byTraffic = missing && config.mode() == PlannerConfig.Mode.SLA ? demand(pool, now, workers)
                    : Double.NaN;
            double needed = Math.max(Double.isNaN(byTraffic) ? 0 : byTraffic, load.demand(workers));
            Replicas replicas = current.getOrDefault(pool, Replicas.none());
            int previous = targets.getOrDefault(pool, Math.max(replicas.target(), replicas.current()));
            int desired = Math.min(config.pools().get(pool).max(), (int) Math.ceil(needed - 1e-9));
            int target = Math.max(previous, Math.min(desired, Math.max(1, 2 * previous)));
            if (target > previous) {
                grows = true;
                wantedLess.get(pool).clear();
                beforeUrgent.putIfAbsent(pool, previous);
            }
            plans.put(pool, new PoolPlan(replicas.current(), replicas.ready(), needed, desired, target,
                    target > previous ? "urgent scale up" : "steady"));
        }
        if (!grows) {
            return null;
        }
        Map<Pool, Integer> wanted = new EnumMap<>(Pool.class);
        plans.forEach((pool, plan) -> wanted.put(pool, plan.target()));
        Map<Pool, Integer> budgeted = withinBudget(wanted);
        plans.replaceAll((pool, plan) -> {
            targets.put(pool, budgeted.get(pool));
            return new PoolPlan(plan.current(), plan.ready(), plan.demand(), plan.desired(), budgeted.get(pool),
                    plan.reason());
        });
        return new Decision(soFar, now, plans);
    }

    private double demand(Pool pool, Prediction prediction, PoolLoad workers) {
        if (config.mode() == PlannerConfig.Mode.LOAD) {
            return load.demand(workers);
        }
        if (Double.isNaN(prediction.requestsPerSecond()) || Double.isNaN(prediction.inputTokens())
                || Double.isNaN(prediction.outputTokens())) {
            return Double.NaN; // nothing measured yet: keep what there is
        }
        return switch (pool) {
            case PREFILL -> sla.prefill(prediction);
            case DECODE -> sla.decode(prediction);
            case AGGREGATED -> sla.aggregated(prediction);
        };
    }

    /**
     * Updates the correction factors from the interval's latencies against what the profile expects at its load:
     * the 90th percentile of TTFT, and the mean ITL. A pool whose ready workers changed since the last decision
     * is skipped: its latencies mix two sizes, and the queue a smaller pool built still drains on the larger one.
     */
    private void correct(Observation observed) {
        Traffic traffic = observed.traffic();
        if (Double.isNaN(traffic.inputTokens()) || Double.isNaN(traffic.outputTokens())) {
            return;
        }
        Pool prefill = config.disaggregated() ? Pool.PREFILL : Pool.AGGREGATED;
        Pool decode = config.disaggregated() ? Pool.DECODE : Pool.AGGREGATED;
        PoolLoad prefillers = observed.pool(prefill);
        PoolLoad decoders = observed.pool(decode);
        if (steady(prefill, prefillers) && !Double.isNaN(traffic.ttftP90Ms())) {
            double expectedTtft = sla.expectedTtftP90Ms(traffic.requestsPerSecond(), traffic.inputTokens(),
                    traffic.cacheHitRatio(), traffic.prefillCv2(), prefillers.ready());
            if (Double.isFinite(expectedTtft)) {
                prefillCorrection = smooth(prefillCorrection, clamp(traffic.ttftP90Ms() / expectedTtft));
            }
        }
        if (steady(decode, decoders) && !Double.isNaN(traffic.itlMs()) && decoders.ready() > 0) {
            double expectedItl = sla.expectedItlMs(decoders.activePerWorker(), traffic.inputTokens(),
                    traffic.outputTokens());
            decodeCorrection = smooth(decodeCorrection, clamp(traffic.itlMs() / expectedItl));
        }
    }

    private boolean steady(Pool pool, PoolLoad workers) {
        return readyBefore.getOrDefault(pool, workers.ready()) == workers.ready();
    }

    /** Rounds, bounds, applies scale-down hysteresis and the budget. */
    private Map<Pool, PoolPlan> settle(Map<Pool, Double> demand, Map<Pool, Replicas> current, Observation observed) {
        Map<Pool, Integer> desired = new EnumMap<>(Pool.class);
        Map<Pool, Integer> wanted = new EnumMap<>(Pool.class);
        Map<Pool, String> reasons = new EnumMap<>(Pool.class);
        for (Pool pool : config.pools().keySet()) {
            PlannerConfig.Bounds bounds = config.pools().get(pool);
            Replicas now = current.getOrDefault(pool, Replicas.none());
            int previous = targets.getOrDefault(pool, Math.max(now.target(), now.current()));
            double d = demand.get(pool);
            int want = Double.isNaN(d) ? previous : (int) Math.ceil(d - 1e-9);
            int bounded = Math.max(bounds.min(), Math.min(bounds.max(), want));
            desired.put(pool, bounded);
            Deque<Integer> history = wantedLess.get(pool);
            int target;
            Integer beforeGrowth = beforeUrgent.get(pool);
            if (beforeGrowth != null && bounded < previous && metTargets(observed.traffic())) {
                // the interval ran on the grown pool within its targets: size it from the whole interval now
                history.clear();
                target = Math.max(bounded, beforeGrowth);
                reasons.put(pool, "urgent scale up revised");
            } else if (bounded >= previous) {
                history.clear();
                target = bounded;
                reasons.put(pool, bounded > previous ? "scale up" : "steady");
            } else {
                history.addLast(bounded);
                if (history.size() >= config.scaleDownIntervals()) {
                    target = history.stream().mapToInt(Integer::intValue).max().orElse(bounded);
                    history.clear();
                    reasons.put(pool, "scale down after " + config.scaleDownIntervals() + " intervals");
                } else {
                    target = previous;
                    reasons.put(pool, "holding (" + history.size() + "/" + config.scaleDownIntervals()
                            + " intervals below)");
                }
            }
            wanted.put(pool, target);
        }
        Map<Pool, Integer> budgeted = withinBudget(wanted);
        Map<Pool, PoolPlan> plans = new EnumMap<>(Pool.class);
        for (Pool pool : config.pools().keySet()) {
            int target = budgeted.get(pool);
            targets.put(pool, target);
            Replicas now = current.getOrDefault(pool, Replicas.none());
            String reason = target < wanted.get(pool) ? "cut to the budget of " + config.budget() : reasons.get(pool);
            plans.put(pool, new PoolPlan(now.current(), now.ready(), demand.get(pool), desired.get(pool), target, reason));
        }
        return plans;
    }

    private boolean metTargets(Traffic traffic) {
        return traffic.ttftP90Ms() <= config.slo().ttftMs() && traffic.itlP90Ms() <= config.slo().itlMs();
    }

    private Map<Pool, Integer> withinBudget(Map<Pool, Integer> wanted) {
        int total = wanted.values().stream().mapToInt(Integer::intValue).sum();
        if (total <= config.budget()) {
            return wanted;
        }
        Map<Pool, Integer> cut = new EnumMap<>(Pool.class);
        int left = config.budget();
        for (Pool pool : wanted.keySet()) {
            int min = config.pools().get(pool).min();
            int share = Math.max(min, (int) Math.floor(wanted.get(pool) * (double) config.budget() / total));
            cut.put(pool, share);
            left -= share;
        }
        // hand what rounding left over to the pools furthest below what they wanted
        while (left > 0) {
            Pool neediest = null;
            for (Pool pool : wanted.keySet()) {
                int missing = wanted.get(pool) - cut.get(pool);
                if (missing > 0 && (neediest == null || missing > wanted.get(neediest) - cut.get(neediest))) {
                    neediest = pool;
                }
            }
            if (neediest == null) {
                break;
            }
            cut.merge(neediest, 1, Integer::sum);
            left--;
        }
        return cut;
    }

    /** {@code latest} folded into {@code previous}; either alone when the other is unknown (NaN). */
    private static double smoothKnown(double previous, double latest) {
        if (Double.isNaN(latest)) {
            return previous;
        }
        return Double.isNaN(previous) ? latest : smooth(previous, latest);
    }

    private static double orElse(double value, double fallback) {
        return Double.isNaN(value) ? fallback : value;
    }

    private static double smooth(double previous, double latest) {
        return (1 - SMOOTHING) * previous + SMOOTHING * latest;
    }

    private static double clamp(double ratio) {
        return Math.max(MIN_CORRECTION, Math.min(MAX_CORRECTION, ratio));
    }
}
