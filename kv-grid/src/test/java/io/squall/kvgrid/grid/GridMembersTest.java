package io.squall.kvgrid.grid;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.ringbuffer.Ringbuffer;
import io.squall.kvgrid.KvEvent;
import io.squall.kvgrid.WorkerId;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GridMembersTest {

    @Test
    void aKubernetesSeedFindsMembersByDnsOnEveryInterface() {
        Config config = GridMembers.config(new GridConfig("squall", "0.0.0.0", 5701, List.of("k8s:demo-hz.serving"), 1, 1000));

        JoinConfig join = config.getNetworkConfig().getJoin();
        assertThat(join.getKubernetesConfig().isEnabled()).isTrue();
        assertThat(join.getKubernetesConfig().getProperties())
                .containsExactlyInAnyOrderEntriesOf(java.util.Map.of(
                        "service-dns", "demo-hz.serving.svc.cluster.local", "service-port", "5701"));
        assertThat(join.getTcpIpConfig().isEnabled()).isFalse();
        assertThat(join.getMulticastConfig().isEnabled()).isFalse();
        assertThat(join.getAutoDetectionConfig().isEnabled()).isFalse();
        assertThat(config.getNetworkConfig().getInterfaces().isEnabled()).isFalse();
        assertThat(config.getProperty("hazelcast.socket.bind.any")).isEqualTo("true");
        assertThat(config.getNetworkConfig().getPort()).isEqualTo(5701);
    }

    @Test
    void aFullServiceNameAndPortAreUsedAsWritten() {
        KubernetesJoin join = KubernetesJoin.parse("k8s:demo-hz.serving.svc.example.org:5702");

        assertThat(join).isEqualTo(new KubernetesJoin("demo-hz.serving.svc.example.org", 5702));
    }

    @Test
    void aKubernetesSeedWithoutANamespaceIsRefusedWithTheExpectedForm() {
        assertThatThrownBy(() -> new GridConfig("squall", "0.0.0.0", 5701, List.of("k8s:demo-hz"), 1, 1000))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("k8s:SERVICE.NAMESPACE[:PORT]");
        assertThatThrownBy(() -> KubernetesJoin.parse("k8s:demo-hz.serving:70000"))
                .hasMessageContaining("within 1..65535");
    }

    @Test
    void hostSeedsStillJoinByTcpOnTheGivenInterface() {
        Config config = GridMembers.config(new GridConfig("squall", "127.0.0.1", 5701, List.of("127.0.0.1:5702"), 1, 1000));

        JoinConfig join = config.getNetworkConfig().getJoin();
        assertThat(join.getKubernetesConfig().isEnabled()).isFalse();
        assertThat(join.getTcpIpConfig().isEnabled()).isTrue();
        assertThat(join.getTcpIpConfig().getMembers()).containsExactly("127.0.0.1:5702");
        assertThat(config.getNetworkConfig().getInterfaces().getInterfaces()).containsExactly("127.0.0.1");
        assertThat(config.getProperty("hazelcast.socket.bind.any")).isEqualTo("false");
    }

    @Test
    void kvEventBatchesAreKeptForMinutesNotUntilTheRingIsFull() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        Config config = GridMembers.config(new GridConfig(
                "ring-" + port, "127.0.0.1", port, List.of("127.0.0.1:" + port), 1, 1000));
        HazelcastInstance member = Hazelcast.newHazelcastInstance(config);
        try {
            new KvEventTopic(member).publish(List.of(new KvEvent.Cleared(new WorkerId(1), 1)));

            // the ring the topic really writes to, sized by the config Hazelcast resolved for it
            Ringbuffer<Object> ring = member.getRingbuffer("_hz_rb_" + KvEventTopic.NAME);
            assertThat(ring.size()).isEqualTo(1);
            assertThat(ring.capacity()).isEqualTo(GridMembers.KV_EVENT_BATCHES);
            assertThat(member.getConfig().findRingbufferConfig(KvEventTopic.NAME).getTimeToLiveSeconds())
                    .isEqualTo(GridMembers.KV_EVENT_SECONDS);
        } finally {
            member.shutdown();
        }
        assertThat(config.getReliableTopicConfig(KvEventTopic.NAME).getTopicOverloadPolicy())
                .isEqualTo(com.hazelcast.topic.TopicOverloadPolicy.DISCARD_OLDEST);
    }
}
