package io.squall.gateway.routing;

import io.squall.functions.discovery.WorkerInstance;

import java.util.Objects;

/**
 * Where a {@link RoutingPolicy} sends a request, and what it knew.
 *
 * @param worker the chosen worker
 * @param overlapBlocks leading blocks of the prompt the router believed the worker holds in G1, or
 *     {@link #UNKNOWN} for a policy that does not look at the KV cache
 */
public record RouteDecision(WorkerInstance worker, int overlapBlocks) {

    /** The overlap of a policy that keeps no KV index. */
    public static final int UNKNOWN = -1;

    public RouteDecision {
        Objects.requireNonNull(worker, "worker");
        if (overlapBlocks < UNKNOWN) {
            throw new IllegalArgumentException("overlap blocks must be >= 0, or UNKNOWN");
        }
    }

    /** A decision made without a KV index. */
    public static RouteDecision blind(WorkerInstance worker) {
        return new RouteDecision(worker, UNKNOWN);
    }
}
