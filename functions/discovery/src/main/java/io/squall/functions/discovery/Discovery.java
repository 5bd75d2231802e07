package io.squall.functions.discovery;

import reactor.core.publisher.Flux;

import java.util.List;
import java.util.function.Supplier;

/**
 * Where stages find each other: workers register themselves with a lease that they keep renewing and a
 * load report that they keep current; gateways and planners list and watch them.
 *
 * <p>Implementations are thread-safe.
 */
public interface Discovery {

    /** The instances registered now, as last seen by this process. */
    List<WorkerInstance> instances();

    /**
     * The registered instances followed by every change: first an {@link DiscoveryEvent.Added} for each
     * instance registered at subscription, then events in the order they happened.
     *
     * <p>Demand: events are buffered for a slow subscriber up to a bound (at least 1,024 events); beyond
     * it the flux fails with an {@code OVERLOADED} {@link io.squall.functions.api.StageException}, and
     * the subscriber re-subscribes to start again from a fresh listing.
     */
    Flux<DiscoveryEvent> watch();

    /**
     * Registers {@code instance} until the returned registration is closed or this process leaves the
     * cluster. {@code load} is sampled on an interval and published when it changes.
     */
    Registration register(WorkerInstance instance, Supplier<LoadReport> load);
}
