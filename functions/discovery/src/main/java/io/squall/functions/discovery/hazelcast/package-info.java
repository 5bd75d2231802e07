/**
 * Hazelcast glue of discovery: {@link io.squall.functions.discovery.hazelcast.HazelcastDiscovery}
 * keeps registrations as TTL entries of one map, renewed by heartbeat and removed when their member
 * leaves the cluster, and turns map events into {@link io.squall.functions.discovery.DiscoveryEvent}s;
 * {@link io.squall.functions.discovery.hazelcast.ClusterMember} is one process's membership of the cluster
 * (the embedded member, discovery, the block directory and the KV event topic) with the rule for
 * publishing KV events to both.
 */
package io.squall.functions.discovery.hazelcast;
