package io.squall.scheduler.connector;

/** Starts workers of a pool for a {@link ManagedConnector}. Thread-safe. */
@FunctionalInterface
public interface WorkerFactory {

    /**
     * Starts a worker of {@code pool} that joins the cluster; returns once it is launched (it becomes ready later).
     *
     * @throws io.squall.scheduler.ScalingException if it could not be launched
     */
    WorkerHandle start(io.squall.scheduler.Pool pool);
}
