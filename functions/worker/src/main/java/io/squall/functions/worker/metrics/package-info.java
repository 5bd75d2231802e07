/**
 * The worker's Prometheus metrics ({@link io.squall.functions.worker.metrics.WorkerMetrics}, names
 * prefixed {@code squall_worker_}, base units) and the decorator that measures each generate stream
 * ({@link io.squall.functions.worker.metrics.MeteredGenerateService}).
 */
package io.squall.functions.worker.metrics;
