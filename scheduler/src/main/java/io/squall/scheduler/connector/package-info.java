/**
 * Scaling connectors besides Knative's: {@link io.squall.scheduler.connector.ManagedConnector} runs workers itself
 * through a {@link io.squall.scheduler.connector.WorkerFactory} (processes on this machine with {@link
 * io.squall.scheduler.connector.ProcessWorkers}: the {@code local} connector), and {@link
 * io.squall.scheduler.connector.DryRunConnector} only logs.
 */
package io.squall.scheduler.connector;
