package io.squall.functions.discovery.hazelcast;

import io.squall.functions.api.StageException;
import io.squall.functions.discovery.InstanceId;
import io.squall.functions.discovery.LoadReport;
import io.squall.functions.discovery.ServedModel;
import io.squall.functions.discovery.WorkerInstance;
import io.squall.functions.discovery.WorkerRole;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LeaseTest {

    private static final WorkerInstance WORKER = new WorkerInstance(new InstanceId("squall", "worker", "generate", 0x3f2a),
            WorkerRole.DECODE, new ServedModel("stories260K", 100, 32, "stories260K"), "10.0.0.7", 7001, 8001, 64,
            new LoadReport(3, 1, 90, 100, 17));

    @Test
    void aRegistrationCarriesTheServedModelsLimits() {
        Lease lease = new Lease(UUID.randomUUID(), WORKER);

        Lease back = Lease.decode(lease.encode());

        assertThat(back).isEqualTo(lease);
        assertThat(back.instance().model().contextLength()).isEqualTo(100);
        assertThat(back.instance().model().blockSize()).isEqualTo(32);
    }

    @Test
    void aRegistrationWithoutTheModelsLimitsIsUnreadable() {
        byte[] full = new Lease(UUID.randomUUID(), WORKER).encode();
        // the limits are the last fields: context length 100 (1 byte), block size (1), salt (1 + 11)
        byte[] withoutLimits = Arrays.copyOf(full, full.length - 14);

        assertThatThrownBy(() -> Lease.decode(withoutLimits)).isInstanceOf(StageException.class);
    }

    @Test
    void limitsOutOfRangeAreUnreadableNotACrash() {
        byte[] bytes = new Lease(UUID.randomUUID(), WORKER).encode();
        bytes[bytes.length - 14] = 0; // context length 0

        assertThatThrownBy(() -> Lease.decode(bytes)).isInstanceOf(StageException.class)
                .hasMessageContaining("context length");
    }
}
