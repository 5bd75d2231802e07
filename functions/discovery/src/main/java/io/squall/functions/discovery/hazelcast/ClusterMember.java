package io.squall.functions.discovery.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import io.squall.functions.api.auth.ClusterSecret;
import io.squall.functions.discovery.Discovery;
import io.squall.functions.discovery.FreePorts;
import io.squall.kvgrid.KvEvent;
import io.squall.kvgrid.grid.BlockDirectory;
import io.squall.kvgrid.grid.GridConfig;
import io.squall.kvgrid.grid.GridMembers;
import io.squall.kvgrid.grid.KvEventTopic;

import java.util.List;
import java.util.Objects;

/**
 * This process's membership of a Squall cluster: an embedded Hazelcast member, {@link HazelcastDiscovery}
 * over it, the cluster-wide {@link BlockDirectory}, the {@link KvEventTopic} routers follow and the
 * {@link TrafficBoard} planners read.
 *
 * <p>{@link #publishKvEvents(List)} is the one place that states how a worker's KV events reach the
 * cluster: the directory first, then the topic, so a router that sees an event on the topic can rely on
 * the directory already having it when it repairs a gap from a snapshot.
 *
 * <p>Thread-safe. {@link #close()} closes discovery and shuts the member down.
 */
public final class ClusterMember implements AutoCloseable {

    /** The cluster name every Squall process joins unless told otherwise. */
    public static final String DEFAULT_NAME = "squall";

    /** G4 blocks each member holds at most, unless told otherwise, before the least recently used are evicted. */
    public static final int DEFAULT_G4_BLOCKS_PER_MEMBER = 4096;

    private final HazelcastInstance member;
    private final HazelcastDiscovery discovery;
    private final BlockDirectory directory;
    private final KvEventTopic kvEventTopic;
    private final TrafficBoard trafficBoard;

    /** Wraps a started member; closing this shuts it down. */
    public ClusterMember(HazelcastInstance member) {
        this.member = Objects.requireNonNull(member, "member");
        this.discovery = new HazelcastDiscovery(member, DiscoveryConfig.defaults());
        this.directory = new BlockDirectory(member);
        this.kvEventTopic = new KvEventTopic(member);
        this.trafficBoard = new TrafficBoard(member);
    }

    /**
     * Starts a member of the cluster {@code name} on {@code host:port} (0 picks a free port) that joins the
     * seed {@code join} ({@code host:port}), or forms a cluster of its own when {@code join} is {@code null}.
     * Blocks until the member has joined or formed its cluster.
     *
     * @param g4Blocks the most G4 blocks this member holds in the grid (only workers started with a grid G4 tier
     *     write there)
     */
    public static ClusterMember join(String name, String host, int port, String join) {
        return join(name, ClusterSecret.open(), host, port, join, DEFAULT_G4_BLOCKS_PER_MEMBER);
    }

    /**
     * As {@link #join(String, String, int, String)} for a cluster closed by {@code secret}: the member's Hazelcast
     * cluster name is {@link ClusterSecret#clusterName(String) name suffixed with a digest of the secret}, so it
     * joins only members that hold the same secret (Hazelcast refuses a join request whose cluster name differs),
     * and a member without it cannot join this one.
     */
    public static ClusterMember join(String name, ClusterSecret secret, String host, int port, String join) {
        return join(name, secret, host, port, join, DEFAULT_G4_BLOCKS_PER_MEMBER);
    }

    /** As {@link #join(String, ClusterSecret, String, int, String)}, holding at most {@code g4Blocks} G4 blocks. */
    public static ClusterMember join(String name, ClusterSecret secret, String host, int port, String join, int g4Blocks) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(secret, "secret");
        Objects.requireNonNull(host, "host");
        int bound = port == 0 ? FreePorts.one(host) : port;
        String seed = join == null ? host + ":" + bound : join;
        return new ClusterMember(GridMembers.start(
                new GridConfig(secret.clusterName(name), host, bound, List.of(seed), 1, g4Blocks)));
    }

    /** The Hazelcast member, for the grid structures built on it (e.g. the G4 block store). */
    public HazelcastInstance hazelcast() {
        return member;
    }

    /** Discovery of the cluster's stages. */
    public Discovery discovery() {
        return discovery.discovery();
    }

    /** The cluster-wide block directory. */
    public BlockDirectory blockDirectory() {
        return directory;
    }

    /** The cluster's KV event stream, which KV-aware routers follow. */
    public KvEventTopic kvEventTopic() {
        return kvEventTopic;
    }

    /** Where gateways publish their traffic and planners read it. */
    public TrafficBoard trafficBoard() {
        return trafficBoard;
    }

    /**
     * Publishes one batch of a worker's KV events to the cluster: the block directory first, then the event
     * topic. Makes remote calls; callers on a latency-sensitive thread hand batches to a thread of their own.
     */
    public void publishKvEvents(List<KvEvent> batch) {
        directory.apply(batch);
        kvEventTopic.publish(batch);
    }

    /** The member's cluster address, {@code host:port}: the seed other processes {@code --join}. */
    public String address() {
        var address = member.getCluster().getLocalMember().getAddress();
        return address.getHost() + ":" + address.getPort();
    }

    @Override
    public void close() {
        discovery.close();
        member.shutdown();
    }
}
