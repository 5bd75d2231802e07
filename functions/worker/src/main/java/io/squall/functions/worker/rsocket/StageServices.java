package io.squall.functions.worker.rsocket;

import io.squall.functions.api.GenerateService;
import io.squall.functions.api.KvFetchService;
import io.squall.functions.api.KvPushService;
import io.squall.functions.api.PrefillService;

import java.util.Objects;

/**
 * What a ready stage serves, by route; {@code null} for a route its role does not serve (answered with
 * {@code NOT_FOUND}).
 *
 * @param generate {@code generate}: aggregated and decode workers
 * @param kvFetch {@code kv.fetch}: every worker
 * @param prefill {@code prefill}: prefill workers
 * @param kvPush {@code kv.push}: decode workers
 */
public record StageServices(GenerateService generate, KvFetchService kvFetch, PrefillService prefill,
                            KvPushService kvPush) {

    public StageServices {
        Objects.requireNonNull(kvFetch, "kvFetch");
    }
}
