/**
 * How many workers a pool needs: from a profile's {@link io.squall.scheduler.sizing.PerformanceModel} and the latency
 * targets ({@link io.squall.scheduler.sizing.SlaSizer}), or from KV usage and queues alone ({@link
 * io.squall.scheduler.sizing.LoadSizer}).
 */
package io.squall.scheduler.sizing;
