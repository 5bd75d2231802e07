/**
 * Cluster traffic for planners: each gateway records what it serves ({@link
 * io.squall.functions.discovery.traffic.TrafficRecorder}) and publishes cumulative {@link
 * io.squall.functions.discovery.traffic.TrafficReport}s with {@link
 * io.squall.functions.discovery.traffic.LatencyHistogram}s of TTFT and ITL; a planner reads them through a {@link
 * io.squall.functions.discovery.traffic.TrafficSource} and differences two snapshots for an interval. Framework-free;
 * the Hazelcast board is {@code hazelcast.TrafficBoard}.
 */
package io.squall.functions.discovery.traffic;
