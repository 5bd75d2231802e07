/**
 * RSocket glue of the wire protocol: routing metadata ({@link
 * io.squall.functions.api.rsocket.RouteMetadata}), the mapping between stage errors and error frames
 * ({@link io.squall.functions.api.rsocket.RSocketErrors}), connections to stages over TCP or WebSocket that prove
 * the cluster's secret in their SETUP frame ({@link io.squall.functions.api.rsocket.StageConnections}), the server
 * every stage accepts them with, which refuses connections without that proof
 * ({@link io.squall.functions.api.rsocket.StageServers}), and the requester sides of the routes
 * ({@code generate}, {@code prefill}, {@code kv.push}, {@code kv.fetch}).
 */
package io.squall.functions.api.rsocket;
