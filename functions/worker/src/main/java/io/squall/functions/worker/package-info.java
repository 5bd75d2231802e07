/**
 * The stage functions. {@link io.squall.functions.worker.Worker} is one worker stage (aggregated, prefill
 * or decode) configured by {@link io.squall.functions.worker.WorkerConfig} and fed by a
 * {@link io.squall.functions.worker.ModelSource}. Sub-packages: {@code local} generation in this process,
 * {@code rsocket} the routes, {@code metrics} Prometheus,
 * {@code kv} the KV tiers and event relay, and {@code micronaut} the application: the stage port and the drain.
 */
package io.squall.functions.worker;
