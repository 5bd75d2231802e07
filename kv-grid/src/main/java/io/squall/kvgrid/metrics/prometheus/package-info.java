/**
 * Prometheus simpleclient glue: {@link io.squall.kvgrid.metrics.prometheus.PrometheusKvStats} exports
 * {@link io.squall.kvgrid.metrics.KvStats} as {@code squall_kv_*} metrics in a given registry.
 */
package io.squall.kvgrid.metrics.prometheus;
