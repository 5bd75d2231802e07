/**
 * The worker's KV storage: {@link io.squall.functions.worker.kv.KvConfig} sizes the tiers (G1 pages,
 * G2 host bytes, G3 disk bytes) and {@link io.squall.functions.worker.kv.KvEventRelay} carries the
 * pool's KV events off the scheduler thread to the cluster (the Hazelcast block directory).
 */
package io.squall.functions.worker.kv;
