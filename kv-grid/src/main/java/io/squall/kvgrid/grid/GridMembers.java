package io.squall.kvgrid.grid;

import com.hazelcast.config.Config;
import com.hazelcast.config.EvictionConfig;
import com.hazelcast.config.EvictionPolicy;
import com.hazelcast.config.InMemoryFormat;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.MaxSizePolicy;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.config.ReliableTopicConfig;
import com.hazelcast.config.RingbufferConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.topic.TopicOverloadPolicy;
import java.util.Objects;

/** Builds and starts embedded grid members. */
public final class GridMembers {

    private GridMembers() {
    }

    /** The host that binds every interface. */
    static final String WILDCARD = "0.0.0.0";

    /** KV event batches the cluster keeps for routers that fall behind. */
    static final int KV_EVENT_BATCHES = 65_536;
    /**
     * How long a KV event batch is kept: routers read within milliseconds, and one further behind repairs the gap
     * anyway. Without it the ring held its full count, 80–200 MB that a 30-minute soak saw grow for hours.
     */
    static final int KV_EVENT_SECONDS = 120;

    /**
     * A member configuration: the cluster name, binding to {@code host} only (every interface for
     * {@code 0.0.0.0}), TCP/IP join by the seed list or Kubernetes DNS discovery for a {@code k8s:} seed
     * (multicast and auto-detection off, no phone-home), this package's serialisation factory, the
     * {@link BlockDirectory} map and the bounded {@link GridBlockStore} map, both with
     * {@code backupCount} synchronous backups. Callers may tune the returned config further.
     */
    public static Config config(GridConfig grid) {
        Objects.requireNonNull(grid, "grid");
        Config config = new Config().setClusterName(grid.clusterName());
        config.setProperty("hazelcast.phone.home.enabled", "false");
        // whoever started the member shuts it down: a stage drains on SIGTERM while still a member (it must leave
        // discovery and publish its last KV events), which Hazelcast's own shutdown hook would cut short
        config.setProperty("hazelcast.shutdownhook.enabled", "false");
        boolean anyInterface = WILDCARD.equals(grid.host());
        config.setProperty("hazelcast.socket.bind.any", Boolean.toString(anyInterface));
        // Through SLF4J, so members log where the process's other logs go (stderr for the CLI).
        config.setProperty("hazelcast.logging.type", "slf4j");
        NetworkConfig network = config.getNetworkConfig().setPort(grid.port()).setPortAutoIncrement(false);
        if (!anyInterface) {
            network.getInterfaces().setEnabled(true).addInterface(grid.host());
        }
        JoinConfig join = network.getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        if (KubernetesJoin.requested(grid.members())) {
            KubernetesJoin kubernetes = KubernetesJoin.parse(grid.members().getFirst());
            // DNS lookup mode: the members are the addresses of the headless Service; no Kubernetes API rights needed
            join.getKubernetesConfig().setEnabled(true)
                    .setProperty("service-dns", kubernetes.serviceDns())
                    .setProperty("service-port", Integer.toString(kubernetes.port()));
        } else {
            join.getTcpIpConfig().setEnabled(true).setMembers(grid.members());
        }
        config.getSerializationConfig()
                .addDataSerializableFactory(GridSerialization.FACTORY_ID, new GridSerialization());
        config.addMapConfig(new MapConfig(BlockDirectory.MAP_NAME)
                .setBackupCount(grid.backupCount())
                .setInMemoryFormat(InMemoryFormat.BINARY));
        config.addMapConfig(new MapConfig(GridBlockStore.MAP_NAME)
                .setBackupCount(grid.backupCount())
                .setInMemoryFormat(InMemoryFormat.BINARY)
                .setEvictionConfig(new EvictionConfig()
                        .setEvictionPolicy(EvictionPolicy.LRU)
                        .setMaxSizePolicy(MaxSizePolicy.PER_NODE)
                        .setSize(grid.maxBlocksPerMember())));
        // A reliable topic keeps its messages in the ring buffer "_hz_rb_" + its name, whose config Hazelcast looks
        // up under the topic's own name (a config named with the prefix is never used); when the ring is full or a
        // batch outlives its time the oldest goes, and a router that had not read it sees the gap in event ids.
        config.addRingBufferConfig(new RingbufferConfig(KvEventTopic.NAME)
                .setCapacity(KV_EVENT_BATCHES)
                .setTimeToLiveSeconds(KV_EVENT_SECONDS)
                .setBackupCount(grid.backupCount()));
        config.addReliableTopicConfig(new ReliableTopicConfig(KvEventTopic.NAME)
                .setTopicOverloadPolicy(TopicOverloadPolicy.DISCARD_OLDEST));
        return config;
    }

    /** Starts a member with {@link #config(GridConfig)}; blocks until it has joined or formed a cluster. */
    public static HazelcastInstance start(GridConfig grid) {
        return Hazelcast.newHazelcastInstance(config(grid));
    }
}
