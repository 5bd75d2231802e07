package io.squall.gateway.routing;

import java.util.Locale;
import java.util.function.Supplier;

/** The routing policies a gateway can be started with, by the names the CLI takes ({@code --router}). */
public enum Routers {
    KV, ROUND_ROBIN, RANDOM, LEAST_LOADED;

    /** The CLI name: {@code kv}, {@code round-robin}, {@code random}, {@code least-loaded}. */
    public String cliName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** Parses a CLI name; a clear error lists the accepted ones. */
    public static Routers parse(String name) {
        for (Routers router : values()) {
            if (router.cliName().equals(name)) {
                return router;
            }
        }
        throw new IllegalArgumentException("unknown router '" + name + "': use kv, round-robin, random or least-loaded");
    }

    /** A new policy of this kind; {@code kv} builds the KV-aware one, which needs the cluster's KV events. */
    public RoutingPolicy policy(Supplier<KvRoutingPolicy> kv) {
        return switch (this) {
            case KV -> kv.get();
            case ROUND_ROBIN -> new SimplePolicies.RoundRobin();
            case RANDOM -> new SimplePolicies.Random();
            case LEAST_LOADED -> new SimplePolicies.LeastLoaded();
        };
    }
}
