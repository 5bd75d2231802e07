/**
 * Serving benchmarks run as plain mains (not JMH): {@link
 * io.squall.bench.serving.BatchingTransportBenchmark} measures continuous batching and the RSocket
 * transport against in-process generation.
 */
package io.squall.bench.serving;
