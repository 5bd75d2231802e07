package io.squall.functions.worker.kv;

import io.squall.kvgrid.grid.BlockDirectory;

import java.util.Objects;

/**
 * How a worker shares KV blocks with its cluster.
 *
 * @param events where its KV events go (see {@link KvEventSink}: called on the scheduler thread)
 * @param directory the cluster's block directory, through which the worker finds and onboards blocks that
 *     other workers offloaded (over {@code kv.fetch}); {@code null} for a worker that onboards only
 *     from its own tiers
 */
public record KvSharing(KvEventSink events, BlockDirectory directory) {

    public KvSharing {
        Objects.requireNonNull(events, "events");
    }

    /** Nothing leaves the worker and nothing is fetched from others: for a worker without a cluster. */
    public static KvSharing none() {
        return new KvSharing(KvEventSink.DISCARD, null);
    }

    /** Publishes events to {@code events} and onboards other workers' blocks found in {@code directory}. */
    public static KvSharing cluster(KvEventSink events, BlockDirectory directory) {
        return new KvSharing(events, Objects.requireNonNull(directory, "directory"));
    }
}
