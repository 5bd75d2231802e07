/**
 * KV blocks across the cluster. This root package holds the shared vocabulary: {@link
 * io.squall.kvgrid.BlockHash} (chained) and {@link io.squall.kvgrid.LocalBlockHash} (tokens only),
 * {@link io.squall.kvgrid.Tier}, {@link io.squall.kvgrid.WorkerId} and the {@link io.squall.kvgrid.KvEvent}s
 * that keep routers' indexes current. Sub-packages hold the hashing, the router's radix index, the
 * paged block pool, the offload tiers and the Hazelcast grid.
 */
package io.squall.kvgrid;
