package io.squall.functions.api;

import reactor.core.publisher.Flux;

/**
 * Reading KV blocks another worker holds: the contract of the {@code kv.fetch} route, served by every
 * worker from its own lower tiers (G2 host memory, G3 disk) and called by workers onboarding a prefix.
 *
 * <p>Demand: one block is read per requested frame, never ahead of demand. The stream completes after
 * the last requested hash or at the first hash the responder does not hold, so a short stream is a
 * partial hit, not an error. Errors are signalled as {@link StageException}s.
 */
@FunctionalInterface
public interface KvFetchService {

    Flux<KvBlockFrame> fetch(KvFetchRequest request);
}
