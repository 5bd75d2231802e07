package io.squall.functions.discovery.hazelcast;

import io.squall.functions.api.auth.ClusterSecret;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Members of a closed cluster on loopback: a member holding the secret joins; one without it is refused by the seed
 * (its cluster name differs) and is left in a cluster of its own. (Another secret gives another cluster name, as
 * {@code ClusterSecretTest} checks, and is refused the same way.)
 */
class ClosedClusterMemberIT {

    private static final ClusterSecret SECRET = ClusterSecret.of("member-it: the cluster's secret".getBytes(StandardCharsets.UTF_8));

    @Test
    void onlyMembersHoldingTheSecretJoin() {
        try (ClusterMember seed = ClusterMember.join("closed-it", SECRET, "127.0.0.1", 0, null);
             ClusterMember peer = ClusterMember.join("closed-it", SECRET, "127.0.0.1", 0, seed.address());
             ClusterMember open = ClusterMember.join("closed-it", ClusterSecret.open(), "127.0.0.1", 0, seed.address())) {
            assertThat(seed.hazelcast().getCluster().getMembers()).hasSize(2)
                    .contains(peer.hazelcast().getCluster().getLocalMember());
            assertThat(open.hazelcast().getCluster().getMembers()).hasSize(1);
            assertThat(seed.hazelcast().getConfig().getClusterName()).isEqualTo(SECRET.clusterName("closed-it"));
        }
    }
}
