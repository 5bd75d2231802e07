package io.squall.functions.discovery.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import com.hazelcast.map.listener.EntryExpiredListener;
import io.squall.functions.discovery.Discovery;
import io.squall.functions.discovery.DiscoveryEvent;
import io.squall.functions.discovery.FreePorts;
import io.squall.functions.discovery.InstanceId;
import io.squall.functions.discovery.LoadReport;
import io.squall.functions.discovery.ServedModel;
import io.squall.functions.discovery.WorkerInstance;
import io.squall.functions.discovery.WorkerRole;
import io.squall.kvgrid.grid.GridConfig;
import io.squall.kvgrid.grid.GridMembers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two real members: one watches with 2-second leases, the other writes registrations straight into the map with
 * a short TTL, as a keeper whose renewals were held up would leave them. A lapse is what the member owning the
 * lease's partition reports; the watcher must keep the instance for one more lease time in case it is written
 * again, as keepers do once a stopped owner runs again.
 */
class LapsedLeaseIT {

    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final List<HazelcastInstance> MEMBERS = new ArrayList<>();
    private static HazelcastDiscovery watcher;
    private static IMap<String, byte[]> leases;
    /** Keys whose TTL lapsed, in the order the writing member reports them. */
    private static final BlockingQueue<String> LAPSED = new ArrayBlockingQueue<>(16);

    @BeforeAll
    static void startMembers() {
        int[] ports = FreePorts.of("127.0.0.1", 2);
        List<String> seeds = List.of("127.0.0.1:" + ports[0], "127.0.0.1:" + ports[1]);
        for (int port : ports) {
            MEMBERS.add(GridMembers.start(new GridConfig("lapsed-it-" + ports[0], "127.0.0.1", port, seeds, 1, 1000)));
        }
        watcher = new HazelcastDiscovery(MEMBERS.get(0), new DiscoveryConfig(LEASE, Duration.ofMillis(500), Duration.ofMillis(50)));
        leases = MEMBERS.get(1).getMap(HazelcastDiscovery.MAP_NAME);
        leases.addEntryListener((EntryExpiredListener<String, byte[]>) event -> LAPSED.add(event.getKey()), false);
    }

    @AfterAll
    static void stopMembers() {
        watcher.close();
        MEMBERS.forEach(m -> m.getLifecycleService().terminate());
    }

    @Test
    void aLeaseThatLapsesAndIsWrittenAgainWithinItsGraceNeverLeavesTheView() {
        WorkerInstance instance = instance(1);
        Discovery discovery = watcher.discovery();
        StepVerifier.create(changesOf(discovery, instance))
                .then(() -> write(instance, Duration.ofMillis(200)))
                .expectNextMatches(DiscoveryEvent.Added.class::isInstance)
                .then(() -> {
                    awaitLapse(instance);
                    assertThat(discovery.instances()).extracting(WorkerInstance::id).contains(instance.id());
                    write(instance, Duration.ofMinutes(5));
                })
                .expectNoEvent(LEASE.plusSeconds(1))
                .thenCancel()
                .verify(Duration.ofSeconds(60));
        assertThat(discovery.instances()).extracting(WorkerInstance::id).contains(instance.id());
    }

    @Test
    void aLapsedLeaseNotWrittenAgainLeavesOnceItsGraceIsOver() {
        WorkerInstance instance = instance(2);
        StepVerifier.create(changesOf(watcher.discovery(), instance))
                .then(() -> write(instance, Duration.ofMillis(200)))
                .expectNextMatches(DiscoveryEvent.Added.class::isInstance)
                .then(() -> awaitLapse(instance))
                .expectNextMatches(DiscoveryEvent.Removed.class::isInstance)
                .thenCancel()
                .verify(Duration.ofSeconds(60));
        assertThat(watcher.discovery().instances()).extracting(WorkerInstance::id).doesNotContain(instance.id());
    }

    /** The instance's arrivals and departures as {@code discovery} reports them (the other tests' instances aside). */
    private static Flux<DiscoveryEvent> changesOf(Discovery discovery, WorkerInstance instance) {
        return discovery.watch().filter(e -> switch (e) {
            case DiscoveryEvent.Added a -> a.instance().id().equals(instance.id());
            case DiscoveryEvent.Removed r -> r.id().equals(instance.id());
            case DiscoveryEvent.Updated u -> false;
        });
    }

    private static void write(WorkerInstance instance, Duration ttl) {
        Lease lease = new Lease(MEMBERS.get(1).getCluster().getLocalMember().getUuid(), instance);
        leases.put(instance.id().toString(), lease.encode(), ttl.toMillis(), TimeUnit.MILLISECONDS);
    }

    private static void awaitLapse(WorkerInstance instance) {
        try {
            String key;
            do {
                key = LAPSED.poll(30, TimeUnit.SECONDS);
                assertThat(key).as("the lease of %s lapsing", instance.id()).isNotNull();
            } while (!key.equals(instance.id().toString()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static WorkerInstance instance(long n) {
        return new WorkerInstance(new InstanceId("lapse", "worker", "generate", n), WorkerRole.AGGREGATED,
                ServedModel.of("m", 4096, 16), "127.0.0.1", 7000, 8000, 8, LoadReport.idle(100));
    }
}
