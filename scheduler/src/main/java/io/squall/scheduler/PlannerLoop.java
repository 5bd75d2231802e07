package io.squall.scheduler;

import io.squall.scheduler.Decision.PoolPlan;
import io.squall.scheduler.observe.ClusterObserver;
import io.squall.scheduler.observe.Observation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The planner at work: every interval it observes the cluster, lets the {@link Planner} decide, hands changed targets
 * to the {@link ScalingConnector}, logs the decision with its inputs and tells the listener (metrics, a simulation's
 * record). Between intervals, {@value #CHECKS_PER_INTERVAL} times an interval once a third of it has passed, it
 * checks the interval so far ({@link Planner#urgent}) and grows a pool at once that a burst has outgrown. A failed
 * scaling call is logged and retried the next interval. Runs on one thread of its own.
 */
public final class PlannerLoop implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PlannerLoop.class);
    static final int CHECKS_PER_INTERVAL = 6;

    private final Planner planner;
    private final ClusterObserver observer;
    private final ScalingConnector connector;
    private final PlannerConfig config;
    private final Consumer<Decision> listener;
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("squall-planner").daemon(true).factory());

    /** @param listener told of every decision, on the planner's thread */
    public PlannerLoop(Planner planner, ClusterObserver observer, ScalingConnector connector, PlannerConfig config,
                       Consumer<Decision> listener) {
        this.planner = Objects.requireNonNull(planner, "planner");
        this.observer = Objects.requireNonNull(observer, "observer");
        this.connector = Objects.requireNonNull(connector, "connector");
        this.config = Objects.requireNonNull(config, "config");
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    /**
     * Decides every {@code config.interval()} of the planner's time, which runs {@code timeScale} times faster than
     * the wall clock (a simulation's speedup; 1 otherwise).
     */
    public PlannerLoop start(double timeScale) {
        long period = Math.max(1, Math.round(config.interval().toNanos() / timeScale));
        thread.scheduleAtFixedRate(this::tick, period, period, TimeUnit.NANOSECONDS);
        long check = Math.max(1, period / CHECKS_PER_INTERVAL);
        thread.scheduleAtFixedRate(this::check, check, check, TimeUnit.NANOSECONDS);
        return this;
    }

    /**
     * Between intervals: grows the pools the interval so far has outgrown, once a third of it has passed (less
     * traffic than that is too little to size from). Public for tests.
     *
     * @return the decision when a pool grew, else null
     */
    public Decision check() {
        try {
            if (observer.intervalSoFarSeconds() < config.interval().toNanos() / 3e9) {
                return null;
            }
            Map<Pool, Replicas> current = currentReplicas();
            Decision decision = planner.urgent(observer.peek(), current);
            if (decision != null) {
                apply(decision, current);
            }
            return decision;
        } catch (RuntimeException e) {
            LOG.error("planner: the check between intervals failed", e);
            return null;
        }
    }

    /** One interval: observe, decide, scale, report. Public for tests and for a simulation that steps it. */
    public Decision tick() {
        try {
            Observation observed = observer.observe();
            Map<Pool, Replicas> current = currentReplicas();
            Decision decision = planner.plan(observed, current);
            apply(decision, current);
            return decision;
        } catch (RuntimeException e) {
            LOG.error("planner: the interval failed", e);
            return null;
        }
    }

    private Map<Pool, Replicas> currentReplicas() {
        Map<Pool, Replicas> current = new EnumMap<>(Pool.class);
        for (Pool pool : config.pools().keySet()) {
            current.put(pool, connector.replicas(pool));
        }
        return current;
    }

    /** Hands the changed targets to the connector, logs the decision and tells the listener. */
    private void apply(Decision decision, Map<Pool, Replicas> current) {
        for (Map.Entry<Pool, PoolPlan> entry : decision.pools().entrySet()) {
            if (entry.getValue().target() != current.get(entry.getKey()).target()) {
                try {
                    connector.scale(entry.getKey(), entry.getValue().target());
                } catch (RuntimeException e) {
                    LOG.warn("planner: scaling {} to {} through {} failed; retrying next interval: {}", entry.getKey(),
                            entry.getValue().target(), connector.name(), e.getMessage());
                }
            }
        }
        LOG.info(describe(decision));
        listener.accept(decision);
    }

    /** One line: what was observed, what is predicted, and per pool the demand, desired and target replicas. */
    static String describe(Decision d) {
        var t = d.observed().traffic();
        var p = d.predicted();
        List<String> pools = new ArrayList<>();
        d.pools().forEach((pool, plan) -> pools.add(String.format(Locale.ROOT,
                "%s: demand %.2f desired %d target %d (%s), current %d ready %d, kv %.0f%% queued %d",
                pool.name().toLowerCase(Locale.ROOT), plan.demand(), plan.desired(), plan.target(), plan.reason(),
                plan.current(), plan.ready(), 100 * d.observed().pool(pool).kvUsage(),
                d.observed().pool(pool).queuedSequences())));
        return String.format(Locale.ROOT, "planner t=%.1fs observed rate %.2f/s isl %.0f osl %.0f hit %.2f ttft %.1f ms "
                        + "(p90 %.1f) itl %.2f ms (p90 %.2f); predicted rate %.2f/s isl %.0f osl %.0f, corrections "
                        + "prefill %.2f decode %.2f; %s",
                d.observed().atSeconds(), t.requestsPerSecond(), t.inputTokens(), t.outputTokens(), t.cacheHitRatio(),
                t.ttftMs(), t.ttftP90Ms(), t.itlMs(), t.itlP90Ms(), p.requestsPerSecond(), p.inputTokens(),
                p.outputTokens(), p.prefillCorrection(), p.decodeCorrection(), String.join("; ", pools));
    }

    /** Stops deciding; the connector stays open (its owner closes it). */
    @Override
    public void close() {
        thread.shutdownNow();
        try {
            thread.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
