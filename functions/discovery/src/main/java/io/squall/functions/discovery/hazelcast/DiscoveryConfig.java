package io.squall.functions.discovery.hazelcast;

import java.time.Duration;
import java.util.Objects;

/**
 * Timing of {@link HazelcastDiscovery}.
 *
 * @param leaseTtl how long a registration lives without renewal (the bound on how long an instance whose
 *                 member is alive but whose heartbeat stopped stays listed)
 * @param heartbeat how often a registration's lease is renewed; well below {@code leaseTtl}
 * @param loadInterval how often load is sampled; a changed report is published at once
 */
public record DiscoveryConfig(Duration leaseTtl, Duration heartbeat, Duration loadInterval) {

    public DiscoveryConfig {
        Objects.requireNonNull(leaseTtl, "leaseTtl");
        Objects.requireNonNull(heartbeat, "heartbeat");
        Objects.requireNonNull(loadInterval, "loadInterval");
        if (heartbeat.isNegative() || heartbeat.isZero() || loadInterval.isNegative() || loadInterval.isZero()) {
            throw new IllegalArgumentException("heartbeat and loadInterval must be positive");
        }
        if (heartbeat.multipliedBy(2).compareTo(leaseTtl) > 0) {
            throw new IllegalArgumentException("leaseTtl must be at least twice the heartbeat");
        }
    }

    /** Leases of 3 s renewed every second; load sampled every 100 ms. */
    public static DiscoveryConfig defaults() {
        return new DiscoveryConfig(Duration.ofSeconds(3), Duration.ofSeconds(1), Duration.ofMillis(100));
    }
}
