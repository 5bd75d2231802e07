/**
 * What the planner observes each interval ({@link io.squall.scheduler.observe.Observation}): the gateways'
 * {@link io.squall.scheduler.observe.Traffic} and each pool's {@link io.squall.scheduler.observe.PoolLoad}, read
 * from the cluster by {@link io.squall.scheduler.observe.ClusterObserver}.
 */
package io.squall.scheduler.observe;
