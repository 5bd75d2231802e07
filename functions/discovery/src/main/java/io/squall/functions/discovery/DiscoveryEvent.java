package io.squall.functions.discovery;

/** A change of the registered instances, as seen by {@link Discovery#watch()}. */
public sealed interface DiscoveryEvent {

    /** An instance registered (or was already registered when the watch began). */
    record Added(WorkerInstance instance) implements DiscoveryEvent {
    }

    /** A registered instance published a new load report. */
    record Updated(WorkerInstance instance) implements DiscoveryEvent {
    }

    /** An instance left: deregistered, lease expired, or its cluster member was lost. */
    record Removed(InstanceId id) implements DiscoveryEvent {
    }
}
