package io.squall.scheduler;

/**
 * How many workers a pool has, as a {@link ScalingConnector} sees them.
 *
 * @param target the replicas last asked for (what the pool converges to)
 * @param current replicas that exist: starting, serving or draining
 * @param ready replicas that serve requests now
 */
public record Replicas(int target, int current, int ready) {

    public Replicas {
        if (target < 0 || current < 0 || ready < 0 || ready > current) {
            throw new IllegalArgumentException("replica counts must be >= 0 with ready <= current, got target=" + target
                    + " current=" + current + " ready=" + ready);
        }
    }

    /** A pool with nothing in it and nothing asked for. */
    public static Replicas none() {
        return new Replicas(0, 0, 0);
    }
}
