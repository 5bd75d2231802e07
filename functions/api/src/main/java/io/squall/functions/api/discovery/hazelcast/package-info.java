/**
 * Hazelcast glue of discovery: {@link io.squall.functions.api.discovery.hazelcast.HazelcastDiscovery}
 * keeps registrations as TTL entries of one map, renewed by heartbeat and removed when their member
 * leaves the cluster, and turns map events into {@link io.squall.functions.api.discovery.DiscoveryEvent}s.
 */
package io.squall.functions.api.discovery.hazelcast;
