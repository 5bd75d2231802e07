/**
 * Micronaut glue: {@link io.squall.functions.worker.micronaut.WorkerApplication} runs a
 * {@link io.squall.functions.worker.Worker} behind the stage's Micronaut server (health, readiness, metrics and
 * RSocket over WebSocket on one port) and drains it on stop.
 */
package io.squall.functions.worker.micronaut;
