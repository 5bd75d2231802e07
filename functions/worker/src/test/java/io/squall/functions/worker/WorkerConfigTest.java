package io.squall.functions.worker;

import io.squall.functions.api.auth.ClusterSecret;
import io.squall.functions.discovery.WorkerRole;
import io.squall.functions.engine.batch.BatchConfig;
import io.squall.functions.worker.disagg.DisaggregationConfig;
import io.squall.functions.worker.kv.KvConfig;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.NetworkInterface;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WorkerConfigTest {

    @Test
    void aConcreteHostIsAdvertisedAsItIs() {
        assertThat(config("127.0.0.1").advertisedHost()).isEqualTo("127.0.0.1");
    }

    @Test
    void theWildcardAdvertisesAnAddressOfThisMachineThatOthersCanReach() throws Exception {
        String advertised = config("0.0.0.0").advertisedHost();

        InetAddress address = InetAddress.getByName(advertised);
        assertThat(address.isAnyLocalAddress()).isFalse();
        boolean local = NetworkInterface.getByInetAddress(address) != null;
        assertThat(local).as("%s is an address of this machine", advertised).isTrue();
    }

    @Test
    void anAdvertisedAddressIsHostAndPort() {
        assertThat(WorkerConfig.Address.parse("relay.local:7100")).isEqualTo(new WorkerConfig.Address("relay.local", 7100));
        assertThat(config("127.0.0.1").withAdvertisedRsocket(WorkerConfig.Address.parse("10.0.0.5:9000"))
                .advertisedRsocket()).hasToString("10.0.0.5:9000");
        assertThatThrownBy(() -> WorkerConfig.Address.parse("7100")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> WorkerConfig.Address.parse("host:0")).isInstanceOf(IllegalArgumentException.class);
    }

    private static WorkerConfig config(String host) {
        return new WorkerConfig(WorkerRole.AGGREGATED, host, 0, 0, "squall", BatchConfig.defaults(), KvConfig.inMemory(16),
                4096, DisaggregationConfig.defaults(), ClusterSecret.open(), null, null);
    }
}
