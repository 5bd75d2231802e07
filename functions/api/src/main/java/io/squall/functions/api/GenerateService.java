package io.squall.functions.api;

import reactor.core.publisher.Flux;

/**
 * Generation as a reactive stream: the contract of the {@code generate} route, served by workers and
 * called by gateways, in process or over RSocket.
 *
 * <p>Demand: tokens are generated only as the subscriber requests chunks; each chunk holds at least one
 * token (except possibly the last), so {@code request(n)} bounds the tokens computed ahead. Cancelling
 * the subscription stops the sequence and frees its KV blocks. Errors are signalled as
 * {@link StageException}s.
 */
@FunctionalInterface
public interface GenerateService {

    Flux<TokenChunk> generate(GenerateRequest request);
}
