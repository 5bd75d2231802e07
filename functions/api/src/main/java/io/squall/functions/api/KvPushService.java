package io.squall.functions.api;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Receiving pushed KV blocks: the contract of the {@code kv.push} route, served by decode workers and
 * called by prefill workers.
 *
 * <p>The result completes once all {@link KvPushHeader#blocks()} frames are written into the reserved
 * pages, and fails (as a {@link StageException}) on an unknown reservation, a frame that does not match
 * it, or a stream that ends early or in an error. Demand: frames are requested one at a time as each is
 * written.
 */
@FunctionalInterface
public interface KvPushService {

    Mono<Void> push(KvPushHeader header, Flux<KvBlockFrame> frames);
}
