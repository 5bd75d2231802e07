package io.squall.scheduler.connector;

import io.squall.functions.discovery.Discovery;
import io.squall.scheduler.Pool;
import io.squall.scheduler.Replicas;
import io.squall.scheduler.ScalingConnector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.EnumMap;
import java.util.Map;

/**
 * Changes nothing: logs each target and reports the pools as discovery shows them, so a planner can be watched
 * against a cluster someone else scales. Thread-safe.
 */
public final class DryRunConnector implements ScalingConnector {

    private static final Logger LOG = LoggerFactory.getLogger(DryRunConnector.class);

    private final Discovery discovery;
    private final Map<Pool, Integer> targets = new EnumMap<>(Pool.class);

    public DryRunConnector(Discovery discovery) {
        this.discovery = discovery;
    }

    @Override
    public String name() {
        return "dry-run";
    }

    @Override
    public synchronized Replicas replicas(Pool pool) {
        int ready = (int) discovery.instances().stream().filter(w -> w.role().name().equals(pool.name())).count();
        return new Replicas(targets.getOrDefault(pool, ready), ready, ready);
    }

    @Override
    public synchronized void scale(Pool pool, int replicas) {
        if (replicas < 0) {
            throw new IllegalArgumentException("replicas must not be negative, got " + replicas);
        }
        Integer previous = targets.put(pool, replicas);
        if (previous == null || previous != replicas) {
            LOG.info("dry-run connector: {} would be scaled to {} worker(s)", pool, replicas);
        }
    }
}
