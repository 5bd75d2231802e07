package io.squall.cli;

import com.hazelcast.core.HazelcastInstance;
import io.squall.functions.worker.kv.KvEventRelay;
import io.squall.functions.worker.kv.KvSharing;
import io.squall.kvgrid.grid.BlockDirectory;
import io.squall.kvgrid.grid.KvEventTopic;
import io.squall.functions.api.discovery.hazelcast.DiscoveryConfig;
import io.squall.functions.api.discovery.hazelcast.HazelcastDiscovery;
import io.squall.kvgrid.grid.GridConfig;
import io.squall.kvgrid.grid.GridMembers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * This process's cluster membership for {@code serve} and {@code worker}: an embedded Hazelcast member
 * and discovery over it. {@link #awaitShutdown(AutoCloseable...)} blocks until SIGINT/SIGTERM, then
 * closes what it was given in order and leaves the cluster.
 */
final class Cluster implements AutoCloseable {

    static final String NAME = "squall";

    /** KV event batches queued for the block directory before new ones are dropped. */
    private static final int KV_EVENT_BACKLOG = 4096;

    private final HazelcastInstance member;
    private final HazelcastDiscovery discovery;
    private final BlockDirectory directory;
    private final KvEventTopic kvEventTopic;
    private final KvEventRelay kvEvents;

    private Cluster(HazelcastInstance member) {
        this.member = member;
        this.discovery = new HazelcastDiscovery(member, DiscoveryConfig.defaults());
        this.directory = new BlockDirectory(member);
        this.kvEventTopic = new KvEventTopic(member);
        // the directory first: a router that sees an event on the topic can then rely on the directory having it
        this.kvEvents = new KvEventRelay(batch -> {
            directory.apply(batch);
            kvEventTopic.publish(batch);
        }, KV_EVENT_BACKLOG);
    }

    /**
     * Starts a member on {@code host:port} (0 picks a free port) that joins the seed {@code join}
     * ({@code host:port}), or forms a cluster of its own when {@code join} is {@code null}.
     */
    static Cluster join(String host, int port, String join) {
        int bound = port == 0 ? freePort(host) : port;
        String seed = join == null ? host + ":" + bound : join;
        return new Cluster(GridMembers.start(new GridConfig(NAME, host, bound, List.of(seed), 1, 100_000)));
    }

    HazelcastDiscovery discovery() {
        return discovery;
    }

    /**
     * Workers' KV sharing: events published to the cluster-wide block directory off their scheduler
     * threads, and prefixes other workers offloaded onboarded through that directory.
     */
    KvSharing kvSharing() {
        return KvSharing.cluster(kvEvents, directory);
    }

    /** The cluster's KV event stream, which KV-aware routers follow. */
    KvEventTopic kvEventTopic() {
        return kvEventTopic;
    }

    /** The cluster-wide block directory. */
    BlockDirectory blockDirectory() {
        return directory;
    }

    String address() {
        return member.getCluster().getLocalMember().getAddress().getHost() + ":"
                + member.getCluster().getLocalMember().getAddress().getPort();
    }

    /** Blocks until the JVM is asked to stop, then closes {@code stages} in order and this member. */
    void awaitShutdown(AutoCloseable... stages) throws InterruptedException {
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("squall-shutdown").unstarted(() -> {
            for (AutoCloseable stage : stages) {
                try {
                    stage.close();
                } catch (Exception e) {
                    System.err.println("squall: closing " + stage + " failed: " + e);
                }
            }
            close();
            stopped.countDown();
        }));
        stopped.await();
    }

    @Override
    public void close() {
        kvEvents.close();
        discovery.close();
        member.shutdown();
    }

    private static int freePort(String host) {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getByName(host))) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
