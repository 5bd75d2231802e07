package io.squall.kvgrid.grid;

import com.hazelcast.config.Config;
import com.hazelcast.config.EvictionConfig;
import com.hazelcast.config.EvictionPolicy;
import com.hazelcast.config.InMemoryFormat;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.MaxSizePolicy;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import java.util.Objects;

/** Builds and starts embedded grid members. */
public final class GridMembers {

    private GridMembers() {
    }

    /**
     * A member configuration: the cluster name, binding to {@code host} only, TCP/IP join by the seed
     * list (multicast and auto-detection off, no phone-home), this package's serialisation factory, the
     * {@link BlockDirectory} map and the bounded {@link GridBlockStore} map, both with
     * {@code backupCount} synchronous backups. Callers may tune the returned config further.
     */
    public static Config config(GridConfig grid) {
        Objects.requireNonNull(grid, "grid");
        Config config = new Config().setClusterName(grid.clusterName());
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.socket.bind.any", "false");
        // Through SLF4J, so members log where the process's other logs go (stderr for the CLI).
        config.setProperty("hazelcast.logging.type", "slf4j");
        NetworkConfig network = config.getNetworkConfig().setPort(grid.port()).setPortAutoIncrement(false);
        network.getInterfaces().setEnabled(true).addInterface(grid.host());
        JoinConfig join = network.getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(true).setMembers(grid.members());
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
        return config;
    }

    /** Starts a member with {@link #config(GridConfig)}; blocks until it has joined or formed a cluster. */
    public static HazelcastInstance start(GridConfig grid) {
        return Hazelcast.newHazelcastInstance(config(grid));
    }
}
