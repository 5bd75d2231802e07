/**
 * KV blocks: block hashing, the paged block pool, prefix reuse, eviction, KV events, the router's radix index, tiered offload (G1 to G4) and the Hazelcast KV-block metadata grid. Lands with the kv-grid issue.
 */
package io.squall.kvgrid;
