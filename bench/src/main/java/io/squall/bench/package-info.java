/**
 * JMH micro-benchmarks of Squall's hot paths ({@code <Subject>Benchmark}, real model shapes as
 * parameters), packaged as {@code bench/target/benchmarks.jar}.
 */
package io.squall.bench;
