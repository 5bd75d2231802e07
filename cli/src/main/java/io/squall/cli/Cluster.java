package io.squall.cli;

import io.squall.functions.api.auth.ClusterSecret;
import io.squall.functions.discovery.Discovery;
import io.squall.functions.discovery.hazelcast.ClusterMember;
import io.squall.functions.discovery.hazelcast.TrafficBoard;
import io.squall.functions.worker.kv.KvEventRelay;
import io.squall.functions.worker.kv.KvSharing;
import io.squall.kvgrid.grid.BlockDirectory;
import io.squall.kvgrid.grid.KvEventTopic;

import java.util.Objects;
import java.util.concurrent.CountDownLatch;

/**
 * This process's cluster membership for {@code serve}, {@code worker} and {@code gateway}: a
 * {@link ClusterMember} and the relay that carries its workers' KV events off their scheduler threads.
 * {@link #awaitShutdown(AutoCloseable...)} blocks until SIGINT/SIGTERM, then closes what it was given in
 * order and leaves the cluster.
 */
final class Cluster implements AutoCloseable {

    static final String NAME = ClusterMember.DEFAULT_NAME;

    /** KV event batches queued for the block directory before new ones are dropped. */
    private static final int KV_EVENT_BACKLOG = 4096;

    private final ClusterMember member;
    private final ClusterSecret secret;
    private final KvEventRelay kvEvents;

    private Cluster(ClusterMember member, ClusterSecret secret) {
        this.member = member;
        this.secret = secret;
        this.kvEvents = new KvEventRelay(member::publishKvEvents, KV_EVENT_BACKLOG);
    }

    /**
     * Starts a member on {@code host:port} (0 picks a free port; host {@code 0.0.0.0} binds every interface) that
     * joins the seed {@code join} ({@code host:port}, or {@code k8s:SERVICE.NAMESPACE} for the pods behind a
     * headless Kubernetes Service), or forms a cluster of its own when {@code join} is {@code null}; a closed
     * cluster's members join only members holding the same {@code secret}.
     */
    static Cluster join(String host, int port, String join, ClusterSecret secret) {
        return join(host, port, join, secret, ClusterMember.DEFAULT_G4_BLOCKS_PER_MEMBER);
    }

    /** As {@link #join(String, int, String, ClusterSecret)}, holding at most {@code g4Blocks} blocks of the grid's G4 tier. */
    static Cluster join(String host, int port, String join, ClusterSecret secret, int g4Blocks) {
        Objects.requireNonNull(secret, "secret");
        if (!secret.isOpen()) {
            System.err.println("squall: closed cluster: peers must prove the cluster secret");
        }
        return new Cluster(ClusterMember.join(NAME, secret, host, port, join, g4Blocks), secret);
    }

    /** As {@link #join(String, int, String, ClusterSecret)} for an open cluster. */
    static Cluster join(String host, int port, String join) {
        return join(host, port, join, ClusterSecret.open());
    }

    /** The secret this member joined with, which the stages of this process prove to their peers. */
    ClusterSecret secret() {
        return secret;
    }

    Discovery discovery() {
        return member.discovery();
    }

    /**
     * Workers' KV sharing: events published to the cluster-wide block directory off their scheduler
     * threads, and prefixes other workers offloaded onboarded through that directory.
     */
    KvSharing kvSharing() {
        return KvSharing.cluster(kvEvents, member.blockDirectory());
    }

    /**
     * As {@link #kvSharing()}, with {@code g4}: other workers' lower tiers ({@code peers}), the grid ({@code grid}), or
     * nothing beyond the worker's own tiers ({@code none}; its events still reach the routers).
     */
    KvSharing kvSharing(WorkerOptions.G4 g4) {
        return switch (g4) {
            case PEERS -> kvSharing();
            case GRID -> KvSharing.gridTier(kvEvents, member.blockDirectory(), member.hazelcast());
            case NONE -> KvSharing.ownTiers(kvEvents);
        };
    }

    /** The cluster's KV event stream, which KV-aware routers follow. */
    KvEventTopic kvEventTopic() {
        return member.kvEventTopic();
    }

    /** Where gateways publish their traffic and planners read it. */
    TrafficBoard trafficBoard() {
        return member.trafficBoard();
    }

    /** The cluster-wide block directory. */
    BlockDirectory blockDirectory() {
        return member.blockDirectory();
    }

    String address() {
        return member.address();
    }

    /** Blocks until the JVM is asked to stop, then closes {@code stages} in order and this member. */
    void awaitShutdown(AutoCloseable... stages) throws InterruptedException {
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("squall-shutdown").unstarted(() -> {
            closeAll(stages);
            close();
            stopped.countDown();
        }));
        stopped.await();
    }

    /** Closes {@code stages} in order; a failure is reported and does not stop the others from closing. */
    static void closeAll(AutoCloseable... stages) {
        for (AutoCloseable stage : stages) {
            try {
                stage.close();
            } catch (Exception e) {
                System.err.println("squall: closing " + stage + " failed: " + e);
            }
        }
    }

    @Override
    public void close() {
        kvEvents.close();
        member.close();
    }
}
