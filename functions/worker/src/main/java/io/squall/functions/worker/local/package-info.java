/**
 * The worker's generation running in this process: {@link
 * io.squall.functions.worker.local.SchedulerGenerateService} adapts the engine's continuous-batching
 * scheduler to the reactive {@link io.squall.functions.api.GenerateService} contract that the RSocket
 * routes serve.
 */
package io.squall.functions.worker.local;
