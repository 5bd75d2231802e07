package io.squall.scheduler.observe;

import io.squall.functions.discovery.Discovery;
import io.squall.functions.discovery.DiscoveryEvent;
import io.squall.functions.discovery.InstanceId;
import io.squall.functions.discovery.LoadReport;
import io.squall.functions.discovery.Registration;
import io.squall.functions.discovery.ServedModel;
import io.squall.functions.discovery.WorkerInstance;
import io.squall.functions.discovery.WorkerRole;
import io.squall.functions.discovery.traffic.TrafficRecorder;
import io.squall.functions.discovery.traffic.TrafficReport;
import io.squall.scheduler.Pool;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class ClusterObserverTest {

    private static WorkerInstance worker(long n, WorkerRole role, int active, int free) {
        return new WorkerInstance(new InstanceId("ns", "worker", "generate", n), role, ServedModel.of("m", 4096, 16), "127.0.0.1", 1000 + (int) n,
                2000, 64, new LoadReport(active, 1, free, 100, 0));
    }

    private static Discovery listing(List<WorkerInstance> workers) {
        return new Discovery() {
            @Override
            public Registration register(WorkerInstance instance, Supplier<LoadReport> load) {
                throw new UnsupportedOperationException();
            }

            @Override
            public List<WorkerInstance> instances() {
                return workers;
            }

            @Override
            public Flux<DiscoveryEvent> watch() {
                return Flux.empty();
            }
        };
    }

    @Test
    void anIntervalsTrafficIsTheDifferenceOfEachGatewaysReportsInSimulatedTime() {
        AtomicLong now = new AtomicLong();
        TrafficRecorder a = new TrafficRecorder("a");
        TrafficRecorder b = new TrafficRecorder("b");
        a.requestStarted(); // before the planner started: not its traffic
        List<TrafficReport> board = new ArrayList<>();
        board.add(a.snapshot(0));
        ClusterObserver observer = new ClusterObserver(listing(List.of(
                worker(1, WorkerRole.PREFILL, 2, 50), worker(2, WorkerRole.DECODE, 10, 20),
                worker(3, WorkerRole.DECODE, 6, 40))), () -> List.copyOf(board), 10, now::get);
        for (int i = 0; i < 4; i++) {
            a.requestStarted();
            a.requestFinished(100, 20, 50);
            a.timeToFirstToken(0.02);
            a.interTokenLatency(0.001);
        }
        b.requestStarted();
        b.requestFinished(300, 40, 0);
        board.clear();
        board.add(a.snapshot(1));
        board.add(b.snapshot(1));
        now.set(2_000_000_000L); // two wall seconds: twenty simulated
        Observation observed = observer.observe();
        Traffic t = observed.traffic();
        assertThat(observed.atSeconds()).isCloseTo(20, within(1e-9));
        assertThat(t.requestsPerSecond()).isCloseTo(5 / 20.0, within(1e-9));
        assertThat(t.inputTokens()).isCloseTo(700 / 5.0, within(1e-9));
        assertThat(t.outputTokens()).isCloseTo(120 / 5.0, within(1e-9));
        assertThat(t.cacheHitRatio()).isCloseTo(200 / 700.0, within(1e-9));
        // computed prompt tokens 50, 50, 50, 50 and 300: mean 100, mean square 20,000, so Var/mean² = 1
        assertThat(t.prefillCv2()).isCloseTo(1, within(1e-9));
        assertThat(t.ttftMs()).isCloseTo(200, within(25.0)); // 20 ms of wall time at speedup 10, to a bucket
        assertThat(observed.pool(Pool.DECODE).ready()).isEqualTo(2);
        assertThat(observed.pool(Pool.DECODE).activeSequences()).isEqualTo(16);
        assertThat(observed.pool(Pool.DECODE).kvUsage()).isCloseTo(0.7, within(1e-9));
        assertThat(observed.pool(Pool.AGGREGATED)).isEqualTo(PoolLoad.EMPTY);
        // a peek sees the interval so far without ending it
        a.requestStarted();
        board.clear();
        board.add(a.snapshot(2));
        board.add(b.snapshot(2));
        now.set(2_500_000_000L);
        assertThat(observer.intervalSoFarSeconds()).isCloseTo(5, within(1e-9));
        assertThat(observer.peek().traffic().requestsPerSecond()).isCloseTo(1 / 5.0, within(1e-9));
        now.set(3_000_000_000L);
        assertThat(observer.peek().traffic().requestsPerSecond()).isCloseTo(1 / 10.0, within(1e-9));
        assertThat(observer.observe().traffic().requestsPerSecond()).isCloseTo(1 / 10.0, within(1e-9));
        // nothing new: no traffic
        now.set(4_000_000_000L);
        assertThat(observer.observe().traffic().requestsPerSecond()).isZero();
    }
}
