/**
 * RSocket glue of the wire protocol: routing metadata ({@link
 * io.squall.functions.api.rsocket.RouteMetadata}), the mapping between stage errors and error frames
 * ({@link io.squall.functions.api.rsocket.RSocketErrors}), connections to stages over TCP or WebSocket
 * ({@link io.squall.functions.api.rsocket.StageConnections}) and the requester side of the
 * {@code generate} route ({@link io.squall.functions.api.rsocket.RSocketGenerateClient}).
 */
package io.squall.functions.api.rsocket;
