/**
 * What the KV block manager counts, as the framework-free {@link io.squall.kvgrid.metrics.KvStats}
 * interface the pool and the offload manager report to; {@code metrics.prometheus} exports it.
 */
package io.squall.kvgrid.metrics;
