/**
 * RSocket glue of the worker: {@link io.squall.functions.worker.rsocket.StageResponder} routes incoming
 * streams to the stage's services and maps their errors onto error frames; the same responder serves
 * RSocket over TCP and over WebSocket.
 */
package io.squall.functions.worker.rsocket;
