package io.squall.scheduler.observe;

import io.squall.functions.discovery.Discovery;
import io.squall.functions.discovery.LoadReport;
import io.squall.functions.discovery.WorkerInstance;
import io.squall.functions.discovery.traffic.TokenCounts;
import io.squall.functions.discovery.traffic.TrafficReport;
import io.squall.functions.discovery.traffic.TrafficSource;
import io.squall.scheduler.Pool;

import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Turns what the cluster shows into {@link Observation}s: the workers' load reports from discovery, grouped by role
 * into pools, and the gateways' traffic reports, differenced against the previous call's. Times and rates are
 * converted to the planner's time by {@code timeScale} (a mock cluster at speedup S runs S simulated seconds per
 * second). Not thread-safe: one planner thread calls {@link #observe} and {@link #peek}.
 */
public final class ClusterObserver {

    private final Discovery discovery;
    private final TrafficSource traffic;
    private final double timeScale;
    private final LongSupplier clock;
    private final long start;
    private final Map<String, TrafficReport> previous = new HashMap<>();
    private long last;

    /**
     * @param timeScale simulated seconds per wall-clock second (1 for real workers)
     * @param clock     wall-clock nanoseconds, {@link System#nanoTime()} in production
     */
    public ClusterObserver(Discovery discovery, TrafficSource traffic, double timeScale, LongSupplier clock) {
        if (!(timeScale > 0)) {
            throw new IllegalArgumentException("the time scale must be positive");
        }
        this.discovery = discovery;
        this.traffic = traffic;
        this.timeScale = timeScale;
        this.clock = clock;
        this.start = clock.getAsLong();
        this.last = start;
        // the traffic so far is not this planner's first interval's
        for (TrafficReport report : traffic.reports()) {
            previous.put(report.gateway(), report);
        }
    }

    /** What the interval since the previous call (or since construction) looked like; the next interval starts now. */
    public Observation observe() {
        long now = clock.getAsLong();
        Collection<TrafficReport> reports = traffic.reports();
        Observation observed = sinceLast(now, reports);
        previous.clear();
        reports.forEach(report -> previous.put(report.gateway(), report));
        last = now;
        return observed;
    }

    /** What the current interval has looked like so far, without ending it. */
    public Observation peek() {
        return sinceLast(clock.getAsLong(), traffic.reports());
    }

    /** Planner seconds since the current interval began. */
    public double intervalSoFarSeconds() {
        return (clock.getAsLong() - last) / 1e9 * timeScale;
    }

    private Observation sinceLast(long now, Collection<TrafficReport> reports) {
        double seconds = Math.max(1e-9, (now - last) / 1e9 * timeScale);
        return new Observation((now - start) / 1e9 * timeScale, traffic(seconds, reports), pools());
    }

    private Traffic traffic(double seconds, Collection<TrafficReport> reports) {
        TrafficReport sum = null;
        for (TrafficReport report : reports) {
            TrafficReport earlier = previous.get(report.gateway());
            TrafficReport delta = earlier == null ? report : report.since(earlier);
            sum = sum == null ? delta : sum.plus(delta, "cluster");
        }
        if (sum == null) {
            return Traffic.none();
        }
        double finished = sum.finished();
        TokenCounts tokens = sum.tokens();
        return new Traffic(sum.requests() / seconds,
                finished == 0 ? Double.NaN : tokens.input() / finished,
                finished == 0 ? Double.NaN : tokens.output() / finished,
                tokens.input() == 0 ? Double.NaN : tokens.cached() / (double) tokens.input(),
                squaredVariation(tokens, finished), millis(sum.ttft().mean()), millis(sum.ttft().percentile(90)),
                millis(sum.itl().mean()), millis(sum.itl().percentile(90)), sum.finished(), sum.failed());
    }

    /** Var(u) / E[u]² of the prompt tokens u each finished request computed; NaN without any. */
    private static double squaredVariation(TokenCounts tokens, double finished) {
        double mean = (tokens.input() - tokens.cached()) / finished;
        if (!(mean > 0)) {
            return Double.NaN;
        }
        return Math.max(0, tokens.uncachedSquared() / finished / (mean * mean) - 1);
    }

    private double millis(double wallSeconds) {
        return wallSeconds * 1e3 * timeScale;
    }

    private Map<Pool, PoolLoad> pools() {
        Map<Pool, int[]> counts = new EnumMap<>(Pool.class);
        Map<Pool, double[]> usage = new EnumMap<>(Pool.class);
        for (WorkerInstance worker : discovery.instances()) {
            Pool pool = Pool.valueOf(worker.role().name());
            LoadReport load = worker.load();
            int[] c = counts.computeIfAbsent(pool, p -> new int[3]);
            c[0]++;
            c[1] += load.activeSequences();
            c[2] += load.queuedSequences();
            double used = load.totalKvBlocks() == 0 ? 0
                    : 1 - load.freeKvBlocks() / (double) load.totalKvBlocks();
            usage.computeIfAbsent(pool, p -> new double[1])[0] += used;
        }
        Map<Pool, PoolLoad> pools = new EnumMap<>(Pool.class);
        counts.forEach((pool, c) -> pools.put(pool, new PoolLoad(c[0], c[1], c[2], usage.get(pool)[0] / c[0])));
        return pools;
    }
}
