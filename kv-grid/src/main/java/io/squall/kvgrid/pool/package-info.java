/**
 * The worker's paged KV block pool (tier G1), modelled on vLLM v1's block pool: fixed-size pages in
 * one off-heap {@link java.lang.foreign.MemorySegment} laid out by {@link io.squall.kvgrid.pool.KvLayout},
 * {@link io.squall.kvgrid.pool.KvBlock}s with reference counts and a hash set once when full, an
 * intrusive free list ordered for eviction so that a prefix hit revives a cached block in O(1), pluggable
 * {@link io.squall.kvgrid.pool.EvictionPolicy}s (LRU, TinyLFU) and the batched
 * {@link io.squall.kvgrid.pool.KvEventPublisher}. Owned by one thread, the engine's scheduler; no locks.
 */
package io.squall.kvgrid.pool;
