package io.squall.functions.api;

import reactor.core.publisher.Mono;

/**
 * Prefill on behalf of a decode worker: the contract of the {@code prefill} route, served by prefill
 * workers and called by decode workers.
 *
 * <p>The result comes after every block was pushed to the target over {@code kv.push} and acknowledged
 * by it. Cancelling the subscription stops the prefill and its push. Errors are signalled as
 * {@link StageException}s.
 */
@FunctionalInterface
public interface PrefillService {

    Mono<PrefillResult> prefill(PrefillRequest request);
}
