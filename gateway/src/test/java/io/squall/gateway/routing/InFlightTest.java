package io.squall.gateway.routing;

import io.squall.functions.discovery.InstanceId;
import io.squall.functions.discovery.LoadReport;
import io.squall.functions.discovery.ServedModel;
import io.squall.functions.discovery.WorkerInstance;
import io.squall.functions.discovery.WorkerRole;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class InFlightTest {

    private static final InstanceId ID = new InstanceId("ns", "worker", "generate", 1);

    private static WorkerInstance reporting(int sequences, int usedBlocks) {
        return new WorkerInstance(ID, WorkerRole.AGGREGATED, ServedModel.of("m", 4096, 16), "127.0.0.1", 1, 2, 64,
                new LoadReport(sequences, 0, 100 - usedBlocks, 100, 0));
    }

    @Test
    void aRequestThatJustFinishedNoLongerWeighsOnItsWorkerThoughTheLastReportStillShowsIt() {
        InFlight load = new InFlight();
        load.started(ID, 11);
        WorkerInstance report = reporting(1, 11); // taken while the request ran
        load.reported(report);
        load.finished(ID, 11);
        assertThat(load.sequences(report)).isZero();
        assertThat(load.activeBlocks(report)).isZero();
    }

    @Test
    void aBurstCountsAtOnceAndOtherGatewaysLoadComesFromTheReport() {
        InFlight load = new InFlight();
        WorkerInstance idle = reporting(0, 0);
        load.reported(idle);
        load.started(ID, 5);
        load.started(ID, 5);
        assertThat(load.sequences(idle)).isEqualTo(2);
        // the next report shows our two and three of another gateway's
        WorkerInstance busy = reporting(5, 25);
        load.reported(busy);
        assertThat(load.sequences(busy)).isEqualTo(5);
        assertThat(load.activeBlocks(busy)).isEqualTo(25);
        load.finished(ID, 5);
        assertThat(load.sequences(busy)).isEqualTo(4);
        assertThat(load.activeBlocks(busy)).isEqualTo(20);
    }

    @Test
    void beforeAnyReportTheLargerOfTheRegistrationsLoadAndOurOwnCounts() {
        InFlight load = new InFlight();
        load.started(ID, 3);
        assertThat(load.sequences(reporting(4, 9))).isEqualTo(4);
        assertThat(load.activeBlocks(reporting(0, 0))).isEqualTo(3);
    }
}
