package io.squall.functions.discovery.traffic;

import java.util.Collection;

/** Where a planner reads the cluster's traffic: the latest report of every live gateway. Thread-safe. */
@FunctionalInterface
public interface TrafficSource {

    /** The latest report of each gateway heard from recently; empty when there is none. */
    Collection<TrafficReport> reports();
}
