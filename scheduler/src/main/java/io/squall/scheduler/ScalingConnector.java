package io.squall.scheduler;

/**
 * Where the planner's replica decisions take effect: worker processes on this machine ({@code local}),
 * Knative services through the Kubernetes API ({@code knative}), or only the log ({@code dry-run}).
 *
 * <p>Scaling is asynchronous: {@link #scale} records the target and returns; {@link #replicas} shows the pool
 * converging. Scale-down drains: a removed worker leaves discovery, finishes or migrates its streams, then
 * exits, so no request fails because of it. Implementations are thread-safe.
 */
public interface ScalingConnector extends AutoCloseable {

    /** The connector's name for logs and metrics, e.g. {@code local}. */
    String name();

    /** The replicas of {@code pool} now. */
    Replicas replicas(Pool pool);

    /**
     * Asks for {@code replicas} workers in {@code pool}; returns once the request is accepted.
     *
     * @throws IllegalArgumentException if {@code replicas} is negative or the graph has no such pool
     * @throws ScalingException if the platform refused or could not be reached
     */
    void scale(Pool pool, int replicas);

    /** Stops watching the platform; workers already started keep running unless the connector owns them. */
    @Override
    default void close() {
    }
}
