/** RSocket glue: the client API routes v1.chat and v1.completions over TCP and WebSocket. */
package io.squall.gateway.rsocket;
