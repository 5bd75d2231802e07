package io.squall.gateway.routing;

import java.time.Duration;
import java.time.InstantSource;
import java.util.Locale;
import java.util.function.Supplier;

/** The routing policies a gateway can be started with, by the names the CLI takes ({@code --router}). */
public enum Routers {
    /** KV-aware, from the workers' KV events ({@link KvRoutingPolicy}). */
    KV,
    /** KV-aware, from this router's own decisions, for workers that publish no KV events ({@link ApproximateKvPolicy}). */
    KV_APPROX,
    ROUND_ROBIN, RANDOM, LEAST_LOADED;

    /** The CLI name: {@code kv}, {@code kv-approx}, {@code round-robin}, {@code random}, {@code least-loaded}. */
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
        throw new IllegalArgumentException("unknown router '" + name
                + "': use kv, kv-approx, round-robin, random or least-loaded");
    }

    /** A new policy of this kind with the default KV weights and TTL. */
    public RoutingPolicy policy(Supplier<KvRoutingPolicy> kv) {
        return policy(KvRoutingPolicy.Config.defaults(), ApproximateKvPolicy.DEFAULT_TTL, kv);
    }

    /**
     * A new policy of this kind; {@code kv} builds the KV-aware one, which needs the cluster's KV events, and
     * {@code kv-approx} learns from its own decisions with {@code config}'s weights, assuming a routed prefix
     * stays cached for {@code ttl}.
     */
    public RoutingPolicy policy(KvRoutingPolicy.Config config, Duration ttl, Supplier<KvRoutingPolicy> kv) {
        return switch (this) {
            case KV -> kv.get();
            case KV_APPROX -> new ApproximateKvPolicy(config, ttl, InstantSource.system());
            case ROUND_ROBIN -> new SimplePolicies.RoundRobin();
            case RANDOM -> new SimplePolicies.Random();
            case LEAST_LOADED -> new SimplePolicies.LeastLoaded();
        };
    }
}
