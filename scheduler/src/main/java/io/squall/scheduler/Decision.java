package io.squall.scheduler;

import io.squall.scheduler.observe.Observation;

import java.util.Map;

/**
 * One interval's decision, with what it was based on: the observation, the predicted load, the correction factors
 * (observed over expected latency) and, per pool, the replicas it needs and the target it sets.
 *
 * @param observed  what the interval showed
 * @param predicted the next interval's expected load
 * @param pools     per pool: demand, desired and target replicas
 */
public record Decision(Observation observed, Prediction predicted, Map<Pool, PoolPlan> pools) {

    public Decision {
        pools = Map.copyOf(pools);
    }

    /**
     * The next interval's expected load.
     *
     * @param requestsPerSecond arrival rate
     * @param inputTokens       mean prompt length
     * @param outputTokens      mean output length
     * @param cacheHitRatio     share of prompt tokens expected from cache
     * @param prefillCv2        squared coefficient of variation of the prompt tokens computed per request (0 when
     *                          unknown)
     * @param prefillCorrection observed over expected TTFT (1 when unknown)
     * @param decodeCorrection  observed over expected ITL (1 when unknown)
     */
    public record Prediction(double requestsPerSecond, double inputTokens, double outputTokens, double cacheHitRatio,
                             double prefillCv2, double prefillCorrection, double decodeCorrection) {
    }

    /**
     * One pool's sizing.
     *
     * @param current replicas that existed when deciding
     * @param ready   of which serving
     * @param demand  replicas the load needs (not rounded; NaN when unknown)
     * @param desired demand rounded up and held within the pool's bounds
     * @param target  what the pool is set to: the desired count after scale-down hysteresis and the budget
     * @param reason  why, in a few words
     */
    public record PoolPlan(int current, int ready, double demand, int desired, int target, String reason) {
    }
}
