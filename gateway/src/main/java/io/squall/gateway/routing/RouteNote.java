package io.squall.gateway.routing;

import io.squall.functions.discovery.InstanceId;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

/**
 * What the router did for one stream, for the caller that asked: the worker it last went to, the overlap the
 * router saw there, and how often the stream moved. A caller puts a note in the subscriber {@link Context} of a
 * {@link RoutedGenerateService#generate} stream ({@link #into}); the router fills it in as it routes. Written by
 * the router, read by the caller once the stream has ended (or at any time, for a recent view). Thread-safe.
 */
public final class RouteNote {

    private volatile InstanceId worker;
    private volatile int overlapBlocks = RouteDecision.UNKNOWN;
    private volatile int migrations;

    /** The worker the stream ran on last, or null before it was routed. */
    public InstanceId worker() {
        return worker;
    }

    /** Leading prompt blocks the router believed that worker held, or {@link RouteDecision#UNKNOWN}. */
    public int overlapBlocks() {
        return overlapBlocks;
    }

    /** Times the stream moved to another worker after losing one. */
    public int migrations() {
        return migrations;
    }

    /** A context holding this note for the router. */
    public Context into(Context context) {
        return context.put(RouteNote.class, this);
    }

    static RouteNote in(ContextView context) {
        return context.getOrDefault(RouteNote.class, null);
    }

    void routed(RouteDecision decision, boolean migrated) {
        overlapBlocks = decision.overlapBlocks();
        worker = decision.worker().id();
        if (migrated) {
            migrations++; // one writer: attempts of a stream run one after another
        }
    }
}
