/**
 * The planner: it sizes the worker pools ({@link io.squall.scheduler.Pool}) of a graph against latency targets
 * and hands its decisions to a {@link io.squall.scheduler.ScalingConnector} ({@code local}, {@code knative},
 * {@code dry-run}). Framework-free.
 */
package io.squall.scheduler;
