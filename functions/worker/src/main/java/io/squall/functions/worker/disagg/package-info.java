/**
 * Disaggregated prefill (a decode worker owns the sequence). On a decode worker,
 * {@link io.squall.functions.worker.disagg.RemotePrefillRouter} decides per prompt whether a prefill
 * worker computes its uncached blocks, calls that worker's {@code prefill} route, and
 * {@link io.squall.functions.worker.disagg.PushReservations} writes the blocks arriving over
 * {@code kv.push} into the pages the scheduler reserved. On a prefill worker,
 * {@link io.squall.functions.worker.disagg.PrefillStage} computes the prompt in its own batch and pushes
 * each full block as soon as it is computed. Any failure falls back to a local prefill
 * ({@link io.squall.functions.worker.disagg.FallbackReason}).
 */
package io.squall.functions.worker.disagg;
