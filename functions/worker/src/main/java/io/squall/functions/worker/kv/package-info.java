/**
 * The worker's KV storage: {@link io.squall.functions.worker.kv.KvConfig} sizes the tiers (G1 pages,
 * G2 host bytes, G3 disk bytes) and {@link io.squall.functions.worker.kv.KvEventRelay} carries the
 * pool's KV events off the scheduler thread to the cluster (the Hazelcast block directory). Sharing
 * blocks between workers ({@link io.squall.functions.worker.kv.KvSharing}): each serves
 * {@code kv.fetch} from its G2/G3 ({@link io.squall.functions.worker.kv.LowerTierFetchService}) and
 * onboards other workers' blocks through {@link io.squall.functions.worker.kv.RemoteBlockStore}, a G4
 * tier reaching them as {@link io.squall.functions.worker.kv.KvPeers}.
 */
package io.squall.functions.worker.kv;
