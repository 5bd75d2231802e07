package io.squall.scheduler.connector;

import java.util.concurrent.CompletableFuture;

/**
 * One worker a {@link ManagedConnector} started: a process on this machine, or a worker in this JVM.
 * Thread-safe.
 */
public interface WorkerHandle {

    /** Its RSocket address as it registers in discovery, {@code host:port}: how the connector knows it is ready. */
    String address();

    /** Whether it still runs (starting, serving or draining). */
    boolean alive();

    /**
     * Drains it: it leaves discovery, finishes or hands over its streams, then exits. Completes when it is gone;
     * a worker that does not exit within the grace period is killed.
     */
    CompletableFuture<Void> stop();
}
