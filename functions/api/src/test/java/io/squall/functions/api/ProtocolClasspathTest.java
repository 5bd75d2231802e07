package io.squall.functions.api;

import io.squall.functions.api.codec.WireFormat;
import io.squall.kvgrid.BlockHash;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The wire protocol is a small artifact: a client of it (this module's own classpath) gets the codec and the
 * block hashes it carries, and neither Hazelcast nor discovery.
 */
class ProtocolClasspathTest {

    @Test
    void theProtocolCarriesBlockHashesWithoutHazelcastOrDiscovery() {
        assertThat(WireFormat.class).isNotNull();
        assertThat(new BlockHash(42L).value()).isEqualTo(42L);
        assertThatThrownBy(() -> Class.forName("com.hazelcast.core.HazelcastInstance"))
                .isInstanceOf(ClassNotFoundException.class);
        assertThatThrownBy(() -> Class.forName("io.squall.functions.discovery.Discovery"))
                .isInstanceOf(ClassNotFoundException.class);
    }
}
