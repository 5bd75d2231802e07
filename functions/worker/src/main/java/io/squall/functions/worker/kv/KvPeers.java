package io.squall.functions.worker.kv;

import io.squall.functions.api.KvFetchService;
import io.squall.functions.api.KvPushService;
import io.squall.functions.api.PrefillService;
import io.squall.functions.discovery.InstanceId;
import io.squall.kvgrid.WorkerId;

import java.util.Optional;

/**
 * The other workers of the cluster as KV peers: the {@code kv.fetch} service of a worker, found by its
 * {@link WorkerId} (the id its KV events carry), and, for disaggregated prefill, the {@code prefill}
 * service of a prefill worker and the {@code kv.push} service of a decode worker, found by their
 * {@link InstanceId}. Implementations are thread-safe and may block while looking a worker up or
 * connecting to it; close them to release their connections.
 */
public interface KvPeers extends AutoCloseable {

    /** The worker's {@code kv.fetch} service, or empty when no such worker is known now. */
    Optional<KvFetchService> peer(WorkerId worker);

    /** The {@code prefill} service of {@code worker}, or empty when no such worker is reachable now. */
    Optional<PrefillService> prefillWorker(InstanceId worker);

    /** The {@code kv.push} service of {@code worker}, or empty when no such worker is reachable now. */
    Optional<KvPushService> decodeWorker(InstanceId worker);

    @Override
    void close();
}
