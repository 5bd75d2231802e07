package io.squall.kvgrid.grid;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import org.junit.jupiter.api.Test;

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
    void kvEventBatchesAreKeptForMinutesNotUntilTheRingIsFull() {
        Config config = GridMembers.config(new GridConfig("squall", "127.0.0.1", 5701, List.of("127.0.0.1:5702"), 1, 1000));

        var ring = config.getRingbufferConfig("_hz_rb_" + KvEventTopic.NAME);
        assertThat(ring.getCapacity()).isEqualTo(GridMembers.KV_EVENT_BATCHES);
        assertThat(ring.getTimeToLiveSeconds()).isEqualTo(GridMembers.KV_EVENT_SECONDS);
        assertThat(config.getReliableTopicConfig(KvEventTopic.NAME).getTopicOverloadPolicy())
                .isEqualTo(com.hazelcast.topic.TopicOverloadPolicy.DISCARD_OLDEST);
    }
}
