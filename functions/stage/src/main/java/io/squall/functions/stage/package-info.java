/**
 * What every stage process (worker, gateway, planner) shares on Knative's contract: {@link
 * io.squall.functions.stage.StageServer} serves one HTTP port ({@code PORT}) on Micronaut with {@code /healthz},
 * {@code /readyz}, {@code /metrics} and RSocket over WebSocket at {@code /rsocket}, as the stage's
 * {@link io.squall.functions.stage.StageEndpoints} say; {@link io.squall.functions.stage.ActiveStreams} tracks a
 * stage's open streams so that a shutdown can drain them (finish within a grace period, then end the rest with an
 * error the caller can act on). The Micronaut beans sit in {@code micronaut}.
 */
package io.squall.functions.stage;
