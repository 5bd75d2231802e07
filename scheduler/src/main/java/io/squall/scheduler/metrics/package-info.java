/** The planner's Prometheus metrics ({@code squall_planner_*}), fed by each {@link io.squall.scheduler.Decision}. */
package io.squall.scheduler.metrics;
