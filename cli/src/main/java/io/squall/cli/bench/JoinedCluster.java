package io.squall.cli.bench;

import io.squall.functions.api.auth.ClusterSecret;
import io.squall.functions.discovery.Discovery;
import io.squall.functions.discovery.DiscoveryEvent;
import io.squall.functions.discovery.WorkerInstance;
import io.squall.functions.discovery.hazelcast.ClusterMember;

import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A running cluster under fuzz ({@code squall serve}, or stages in processes of their own), found by joining it as
 * a cluster member, as a gateway does, and reading its workers from discovery; the gateway is given by address.
 * Only an open cluster: the fuzzer's connections carry no cluster secret. Closing leaves the cluster.
 */
final class JoinedCluster implements FuzzTarget {

    private final ClusterMember member;
    private final WireFuzzer.Targets targets;

    /**
     * @param join        a member's {@code host:port} (the embedded member of {@code squall serve} is on :5701)
     * @param gatewayHost the gateway's host
     * @param gatewayPort the gateway's RSocket TCP port (7000 for {@code squall serve})
     * @param wait        how long to wait for a worker to be registered
     * @throws IllegalStateException if no worker serving generate registers within {@code wait}
     */
    JoinedCluster(String join, String gatewayHost, int gatewayPort, Duration wait) {
        Objects.requireNonNull(join, "join");
        member = ClusterMember.join(ClusterMember.DEFAULT_NAME, ClusterSecret.open(), "127.0.0.1", 0, join);
        try {
            // the watch starts with the registered workers: the first one says the cluster's registrations arrived
            WorkerInstance first = member.discovery().watch().ofType(DiscoveryEvent.Added.class)
                    .map(DiscoveryEvent.Added::instance).next().timeout(wait, Mono.empty()).block();
            if (first == null) {
                throw new IllegalStateException("no worker is registered in the cluster of " + join + " after " + wait);
            }
            List<WorkerInstance> workers = member.discovery().instances();
            if (workers.isEmpty()) {
                workers = List.of(first);
            }
            targets = FuzzTarget.choose(workers, gatewayHost, gatewayPort, workers.getFirst().model().name());
        } catch (RuntimeException e) {
            member.close();
            throw e;
        }
    }

    @Override
    public WireFuzzer.Targets targets() {
        return targets;
    }

    @Override
    public Discovery discovery() {
        return member.discovery();
    }

    @Override
    public void close() {
        member.close();
    }
}
