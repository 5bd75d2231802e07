/**
 * The HTTP glue (reactor-netty) of a stage: {@link io.squall.functions.worker.http.StageHttpServer}
 * serves health, readiness, Prometheus metrics and RSocket over WebSocket on one port.
 */
package io.squall.functions.worker.http;
