package io.squall.functions.discovery.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import io.squall.functions.discovery.Discovery;
import io.squall.functions.discovery.DiscoveryEvent;
import io.squall.functions.discovery.FreePorts;
import io.squall.functions.discovery.InstanceId;
import io.squall.functions.discovery.LoadReport;
import io.squall.functions.discovery.Registration;
import io.squall.functions.discovery.ServedModel;
import io.squall.functions.discovery.WorkerInstance;
import io.squall.functions.discovery.WorkerRole;
import io.squall.kvgrid.grid.GridConfig;
import io.squall.kvgrid.grid.GridMembers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three real members on loopback: one watches, the others hold registrations. Leases live far longer than
 * any wait here, so a removal the watcher sees came from a close or a lost member, never from a lapsed TTL.
 * The test that loses a member runs last, since the members are shared.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HazelcastDiscoveryIT {

    /** Longer than every {@link StepVerifier} bound below. */
    private static final Duration LEASE = Duration.ofMinutes(5);
    private static final DiscoveryConfig FAST = new DiscoveryConfig(LEASE, Duration.ofMillis(500), Duration.ofMillis(50));
    private static final List<HazelcastInstance> MEMBERS = new ArrayList<>();
    private static final List<HazelcastDiscovery> DISCOVERIES = new ArrayList<>();

    @BeforeAll
    static void startMembers() {
        int[] ports = FreePorts.of("127.0.0.1", 3);
        List<String> seeds = List.of("127.0.0.1:" + ports[0], "127.0.0.1:" + ports[1], "127.0.0.1:" + ports[2]);
        for (int port : ports) {
            MEMBERS.add(GridMembers.start(new GridConfig("discovery-it-" + ports[0], "127.0.0.1", port, seeds, 1, 1000)));
        }
        for (HazelcastInstance member : MEMBERS) {
            DISCOVERIES.add(new HazelcastDiscovery(member, FAST));
        }
    }

    @AfterAll
    static void stopMembers() {
        DISCOVERIES.forEach(HazelcastDiscovery::close);
        MEMBERS.forEach(m -> m.getLifecycleService().terminate());
    }

    private static WorkerInstance instance(long n) {
        return new WorkerInstance(new InstanceId("it", "worker", "generate", n), WorkerRole.AGGREGATED, ServedModel.of("m", 4096, 16),
                "127.0.0.1", 7000, 8000, 8, LoadReport.idle(100));
    }

    @Test
    @Order(1)
    void registrationsAreListedUpdatedWithLoadAndGoneWhenClosed() {
        Discovery watcher = DISCOVERIES.get(0).discovery();
        AtomicReference<LoadReport> load = new AtomicReference<>(LoadReport.idle(100));
        Registration[] registration = new Registration[1];
        StepVerifier.create(watcher.watch())
                .then(() -> registration[0] = DISCOVERIES.get(1).discovery().register(instance(1), load::get))
                .expectNextMatches(e -> e instanceof DiscoveryEvent.Added a && a.instance().id().instance() == 1)
                .then(() -> load.set(new LoadReport(3, 1, 90, 100, 3)))
                // a refresh that read the load before the change may still arrive with the idle report
                .thenConsumeWhile(e -> e instanceof DiscoveryEvent.Updated u && u.instance().load().activeSequences() == 0)
                .expectNextMatches(e -> e instanceof DiscoveryEvent.Updated u && u.instance().load().activeSequences() == 3)
                .then(() -> {
                    assertThat(DISCOVERIES.get(2).discovery().instances()).extracting(WorkerInstance::id)
                            .contains(instance(1).id());
                    registration[0].close();
                })
                .expectNextMatches(e -> e instanceof DiscoveryEvent.Removed r && r.id().instance() == 1)
                .thenCancel()
                .verify(Duration.ofSeconds(60));
    }

    @Test
    @Order(2)
    void aLostMembersRegistrationsLeaveWithItNotWhenTheirLeaseLapses() {
        Discovery watcher = DISCOVERIES.get(0).discovery();
        StepVerifier.create(watcher.watch().filter(e -> !(e instanceof DiscoveryEvent.Updated)))
                .then(() -> DISCOVERIES.get(2).discovery().register(instance(2), () -> LoadReport.idle(100)))
                .expectNextMatches(e -> e instanceof DiscoveryEvent.Added a && a.instance().id().instance() == 2)
                .then(() -> MEMBERS.get(2).getLifecycleService().terminate())
                .expectNextMatches(e -> e instanceof DiscoveryEvent.Removed r && r.id().instance() == 2)
                .thenCancel()
                .verify(Duration.ofSeconds(60));
    }
}
