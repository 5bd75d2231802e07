/**
 * RSocket glue of the wire protocol: routing metadata ({@link
 * io.squall.functions.api.rsocket.RouteMetadata}), the mapping between stage errors and error frames
 * ({@link io.squall.functions.api.rsocket.RSocketErrors}), connections to stages over TCP or WebSocket
 * ({@link io.squall.functions.api.rsocket.StageConnections}) and the requester sides of the
 * {@code generate} route ({@link io.squall.functions.api.rsocket.RSocketGenerateClient}) and the
 * {@code kv.fetch} route ({@link io.squall.functions.api.rsocket.RSocketKvFetchClient}).
 */
package io.squall.functions.api.rsocket;
