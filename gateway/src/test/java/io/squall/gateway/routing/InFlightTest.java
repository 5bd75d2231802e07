package io.squall.gateway.routing;

import io.squall.functions.discovery.InstanceId;
import io.squall.functions.discovery.LoadReport;
import io.squall.functions.discovery.ServedModel;
import io.squall.functions.discovery.WorkerInstance;
import io.squall.functions.discovery.WorkerRole;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

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
    void aReportSampledWhileTheRequestRanButArrivingAfterItsEndIsNotTakenForAnotherGatewaysLoad() {
        InFlight load = new InFlight();
        load.reported(reporting(0, 0));
        load.started(ID, 11);
        load.finished(ID, 11);
        // sampled before the end, delivered after it: the request it shows was ours
        WorkerInstance stale = reporting(1, 11);
        load.reported(stale);
        assertThat(load.sequences(stale)).isZero();
        assertThat(load.activeBlocks(stale)).isZero();
        // another gateway's two sequences in the same late report still count
        load.started(ID, 7);
        load.finished(ID, 7);
        WorkerInstance staleWithOthers = reporting(3, 27);
        load.reported(staleWithOthers);
        assertThat(load.sequences(staleWithOthers)).isEqualTo(2);
        assertThat(load.activeBlocks(staleWithOthers)).isEqualTo(20);
        // the next report, sampled after the end, is counted as it stands
        WorkerInstance fresh = reporting(2, 20);
        load.reported(fresh);
        assertThat(load.sequences(fresh)).isEqualTo(2);
        assertThat(load.activeBlocks(fresh)).isEqualTo(20);
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

    @Test
    void aWorkerThatJoinsTakesTheNewestWaitingPromptsUntilTheQueuesAreEven() {
        InFlight load = new InFlight();
        InstanceId busy = new InstanceId("ns", "worker", "generate", 2);
        InstanceId lighter = new InstanceId("ns", "worker", "generate", 3);
        InstanceId joined = new InstanceId("ns", "worker", "generate", 4);
        List<InFlight.Waiting> onBusy = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            onBusy.add(load.prefillStarted(busy, 1_000));
        }
        InFlight.Waiting onLighter = load.prefillStarted(lighter, 1_500);
        assertThat(load.prefillEnded(busy, onBusy.getFirst())).as("the first one's first token came back").isTrue();

        List<InFlight.Waiting> taken = load.takeFor(joined);

        // busy's 3,000 queued tokens -> 2,000, and the joined worker's 1,000 (one more would leave busy the shorter)
        assertThat(taken).containsExactly(onBusy.get(3));
        assertThat(onBusy.get(3).wasMoved()).isTrue();
        assertThat(load.prefilling(instance(busy))).isEqualTo(new InFlight.Prefilling(2, 2_000));
        assertThat(load.prefillEnded(busy, onBusy.get(3))).as("a taken request passes nothing on here").isFalse();

        // a second worker joins: busy gives its newest again; lighter's one request is being computed and stays
        assertThat(load.takeFor(new InstanceId("ns", "worker", "generate", 5))).containsExactly(onBusy.get(2));
        assertThat(load.prefilling(instance(busy))).isEqualTo(new InFlight.Prefilling(1, 1_000));
        assertThat(load.prefilling(instance(lighter))).isEqualTo(new InFlight.Prefilling(1, 1_500));
        assertThat(onLighter.wasMoved()).isFalse();
    }

    private static WorkerInstance instance(InstanceId id) {
        return new WorkerInstance(id, WorkerRole.AGGREGATED, ServedModel.of("m", 4096, 16), "127.0.0.1", 1, 2, 64,
                LoadReport.idle(100));
    }
}
