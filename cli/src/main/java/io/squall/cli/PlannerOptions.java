package io.squall.cli;

import io.squall.scheduler.PlannerConfig;
import io.squall.scheduler.Pool;
import io.squall.scheduler.profile.Profile;
import io.squall.scheduler.profile.ProfileFiles;
import io.squall.scheduler.sizing.PerformanceModel;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * How the planner sizes the graph: targets, interval, bounds, budget, mode and predictor. Shared by
 * {@code squall planner}, {@code squall planner simulate} and {@code squall serve --planner}; the profile it sizes
 * from is the engine's {@code --profile}.
 */
final class PlannerOptions {

    @Option(names = "--ttft-ms", defaultValue = "1000", description = "target time to first token (default: ${DEFAULT-VALUE})")
    double ttftMs;

    @Option(names = "--slo-quantile", defaultValue = "0.9",
            description = "share of requests whose TTFT the prefill sizing keeps within --ttft-ms (default: ${DEFAULT-VALUE})")
    double sloQuantile;

    @Option(names = "--itl-ms", defaultValue = "100", description = "target time between tokens, p90 (default: ${DEFAULT-VALUE})")
    double itlMs;

    @Option(names = "--interval", defaultValue = "10", description = "seconds between decisions (default: ${DEFAULT-VALUE})")
    double intervalSeconds;

    @Option(names = "--min", description = "fewest workers per pool, e.g. --min decode=2 (default: 1 each)")
    Map<String, Integer> min = new java.util.HashMap<>();

    @Option(names = "--max", description = "most workers per pool, e.g. --max prefill=4 (default: 8 each)")
    Map<String, Integer> max = new java.util.HashMap<>();

    @Option(names = "--budget", description = "most workers in all pools together (default: the sum of the maximums)")
    Integer budget;

    @Option(names = "--mode", defaultValue = "sla", description = "sla: size from the profile and targets; load: "
            + "from KV usage and queues, without a profile (default: ${DEFAULT-VALUE})")
    String mode;

    @Option(names = "--predictor", defaultValue = "kalman", description = "constant, moving-average or kalman "
            + "(default: ${DEFAULT-VALUE})")
    String predictor;

    @Option(names = "--scale-down-intervals", defaultValue = "3", description = "intervals a pool must want fewer "
            + "workers before it gets them (default: ${DEFAULT-VALUE})")
    int scaleDownIntervals;

    private static final int DEFAULT_MAX = 8;

    /** The configuration for a graph with or without disaggregated prefill. */
    PlannerConfig config(boolean disaggregated) {
        Map<Pool, PlannerConfig.Bounds> pools = new EnumMap<>(Pool.class);
        for (Pool pool : disaggregated ? new Pool[] {Pool.PREFILL, Pool.DECODE} : new Pool[] {Pool.AGGREGATED}) {
            String key = pool.name().toLowerCase(Locale.ROOT);
            pools.put(pool, new PlannerConfig.Bounds(min.getOrDefault(key, 1), max.getOrDefault(key, DEFAULT_MAX)));
        }
        for (String key : min.keySet()) {
            check(key, pools);
        }
        for (String key : max.keySet()) {
            check(key, pools);
        }
        int total = budget != null ? budget : pools.values().stream().mapToInt(PlannerConfig.Bounds::max).sum();
        PlannerConfig.Mode parsedMode = switch (mode) {
            case "sla" -> PlannerConfig.Mode.SLA;
            case "load" -> PlannerConfig.Mode.LOAD;
            default -> throw new IllegalArgumentException("--mode must be sla or load, got " + mode);
        };
        if (!(intervalSeconds > 0)) {
            throw new IllegalArgumentException("--interval must be a positive number of seconds");
        }
        return new PlannerConfig(pools, total, Duration.ofMillis(Math.round(intervalSeconds * 1e3)),
                new PlannerConfig.Slo(ttftMs, itlMs, sloQuantile), parsedMode, predictor, scaleDownIntervals);
    }

    /** The profile's performance, required in SLA mode; null in load mode. */
    static PerformanceModel model(PlannerConfig config, Path profile) {
        if (config.mode() == PlannerConfig.Mode.LOAD) {
            return null;
        }
        if (profile == null) {
            throw new IllegalArgumentException("--mode sla needs --profile (measure one with squall bench profile), or "
                    + "use --mode load");
        }
        Profile read = ProfileFiles.read(profile);
        return new PerformanceModel(read);
    }

    /**
     * A warning when the aggregated workers' fullest step, by the profile's timing, outlasts the ITL target: every
     * decode row in a step that carries a prompt chunk waits for the whole step, so short answers that meet a busy
     * prefill queue miss the target however many workers there are. Null when the steps fit or there is no
     * aggregated pool or profile.
     */
    static String stepWarning(PlannerConfig config, Path profile, int maxBatchedTokens) {
        if (profile == null || !config.pools().containsKey(Pool.AGGREGATED)) {
            return null;
        }
        double stepMs = ProfileTimings.model(ProfileFiles.read(profile).timing()).base(maxBatchedTokens) * 1e3;
        if (stepMs <= config.slo().itlMs()) {
            return null;
        }
        return String.format(Locale.ROOT, "a step of %d tokens (--max-batched-tokens) takes %.0f ms by the profile, "
                + "more than the %.0f ms ITL target: decode rows batched with a prompt chunk wait that long; "
                + "a smaller --max-batched-tokens keeps aggregated workers within it", maxBatchedTokens, stepMs,
                config.slo().itlMs());
    }

    private static void check(String key, Map<Pool, PlannerConfig.Bounds> pools) {
        boolean known = pools.keySet().stream().anyMatch(p -> p.name().toLowerCase(Locale.ROOT).equals(key));
        if (!known) {
            throw new IllegalArgumentException("--min/--max name a pool of this graph: "
                    + pools.keySet().stream().map(p -> p.name().toLowerCase(Locale.ROOT)).toList() + ", not " + key);
        }
    }
}
