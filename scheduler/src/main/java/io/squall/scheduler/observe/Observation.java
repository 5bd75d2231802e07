package io.squall.scheduler.observe;

import io.squall.scheduler.Pool;

import java.util.Map;

/**
 * What the planner saw at the end of one interval.
 *
 * @param atSeconds when, in the planner's time since it started
 * @param traffic   the interval's traffic
 * @param pools     each pool's workers; a pool with no worker is {@link PoolLoad#EMPTY}
 */
public record Observation(double atSeconds, Traffic traffic, Map<Pool, PoolLoad> pools) {

    public Observation {
        pools = Map.copyOf(pools);
    }

    public PoolLoad pool(Pool pool) {
        return pools.getOrDefault(pool, PoolLoad.EMPTY);
    }
}
