package io.squall.functions.worker.kv;

import io.squall.functions.api.KvFetchService;
import io.squall.kvgrid.WorkerId;

import java.util.Optional;

/**
 * The other workers of the cluster as sources of KV blocks: the {@code kv.fetch} service of a worker,
 * found by its {@link WorkerId} (the id its KV events carry). Implementations are thread-safe and may
 * block while looking a worker up; close them to release their connections.
 */
public interface KvPeers extends AutoCloseable {

    /** The worker's {@code kv.fetch} service, or empty when no such worker is known now. */
    Optional<KvFetchService> peer(WorkerId worker);

    @Override
    void close();
}
