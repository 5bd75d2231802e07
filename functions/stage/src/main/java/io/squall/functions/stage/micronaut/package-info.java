/**
 * Micronaut glue of a stage's port: the operations controller ({@code /healthz}, {@code /readyz},
 * {@code /metrics}) and the {@code /rsocket} WebSocket endpoint, which carries RSocket frames (one per binary
 * WebSocket message) through a {@link io.rsocket.DuplexConnection} over the Micronaut session. Both are active
 * only in a context holding {@link io.squall.functions.stage.StageEndpoints}.
 */
package io.squall.functions.stage.micronaut;
