/**
 * The router's view of which worker holds which KV blocks. {@link io.squall.kvgrid.index.RadixIndex}
 * applies {@link io.squall.kvgrid.KvEvent}s and answers prefix-overlap queries with {@link
 * io.squall.kvgrid.index.OverlapScores}; {@link io.squall.kvgrid.index.ApplyOutcome} reports event
 * gaps that a {@link io.squall.kvgrid.index.WorkerSnapshot} repairs. {@link
 * io.squall.kvgrid.index.KvIndexer} owns an index on one thread and is the thread-safe entry point;
 * {@link io.squall.kvgrid.index.ApproximateIndex} learns from routing decisions for workers that
 * publish no events. Implementations live in {@code index.flat}.
 */
package io.squall.kvgrid.index;
