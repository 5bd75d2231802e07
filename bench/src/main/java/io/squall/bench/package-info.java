/**
 * JMH micro-benchmarks ({@code <Subject>Benchmark}, real model shapes as parameters), packaged as
 * {@code bench/target/benchmarks.jar}.
 */
package io.squall.bench;
