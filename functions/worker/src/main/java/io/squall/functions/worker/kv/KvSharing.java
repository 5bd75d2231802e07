package io.squall.functions.worker.kv;

import com.hazelcast.core.HazelcastInstance;
import io.squall.kvgrid.grid.BlockDirectory;

import java.util.Objects;

/**
 * How a worker shares KV blocks with its cluster.
 *
 * @param events where its KV events go (see {@link KvEventSink}: called on the scheduler thread)
 * @param directory the cluster's block directory, through which the worker finds and onboards blocks that
 *     other workers offloaded (over {@code kv.fetch}); {@code null} for a worker that onboards only
 *     from its own tiers
 * @param grid the Hazelcast member whose grid is the worker's G4 tier (every worker writes its evicted blocks
 *     there and onboards from it), or {@code null} for G4 = the other workers' G2/G3 over {@code kv.fetch}
 */
public record KvSharing(KvEventSink events, BlockDirectory directory, HazelcastInstance grid) {

    public KvSharing {
        Objects.requireNonNull(events, "events");
        if (grid != null && directory == null) {
            throw new IllegalArgumentException("a grid G4 tier needs the cluster's block directory too");
        }
    }

    /** Nothing leaves the worker and nothing is fetched from others: for a worker without a cluster. */
    public static KvSharing none() {
        return new KvSharing(KvEventSink.DISCARD, null, null);
    }

    /** Publishes events to {@code events} and onboards other workers' blocks found in {@code directory}. */
    public static KvSharing cluster(KvEventSink events, BlockDirectory directory) {
        return new KvSharing(events, Objects.requireNonNull(directory, "directory"), null);
    }

    /**
     * Publishes events to {@code events}, so KV-aware routers still see the worker's blocks, but onboards only from
     * its own tiers: no worker reuses what another computed (the setting of Dynamo's published router comparisons).
     */
    public static KvSharing ownTiers(KvEventSink events) {
        return new KvSharing(events, null, null);
    }

    /**
     * As {@link #cluster}, with the Hazelcast grid of {@code member} as G4: evicted blocks are copied there and
     * every worker onboards from it, whether or not the worker that computed them is still up.
     */
    public static KvSharing gridTier(KvEventSink events, BlockDirectory directory, HazelcastInstance member) {
        return new KvSharing(events, Objects.requireNonNull(directory, "directory"), Objects.requireNonNull(member, "member"));
    }
}
