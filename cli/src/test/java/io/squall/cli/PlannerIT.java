package io.squall.cli;

import io.squall.cli.bench.BenchRequest;
import io.squall.cli.bench.HttpTarget;
import io.squall.cli.bench.Report;
import io.squall.cli.bench.TraceReplay;
import io.squall.functions.engine.mock.StepTimingModel;
import io.squall.functions.worker.MockEngine;
import io.squall.scheduler.Decision;
import io.squall.scheduler.Planner;
import io.squall.scheduler.PlannerConfig;
import io.squall.scheduler.PlannerLoop;
import io.squall.scheduler.Pool;
import io.squall.scheduler.ScalingConnector;
import io.squall.scheduler.connector.DryRunConnector;
import io.squall.scheduler.connector.ManagedConnector;
import io.squall.scheduler.observe.ClusterObserver;
import io.squall.scheduler.profile.Profile;
import io.squall.scheduler.sizing.PerformanceModel;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The planner live, in one JVM: a cluster member, the gateway, mock workers started and drained by an in-process
 * connector, and a stepped open-loop load (quiet, a burst, quiet again) through the gateway over HTTP. The mock's
 * timing and the profile the planner sizes from are the same model, as a profile measured on the workers would be.
 */
class PlannerIT {

    /** 40 ms a step up to 64 rows, then 0.625 ms a row; 1 µs per position a decode row reads; 10 ns per prompt pair. */
    private static final StepTimingModel TIMING = new StepTimingModel(new int[] {1, 64, 512},
            new double[] {0.040, 0.040, 0.320}, 1e-6, 1e-8);
    private static final int MAX_SEQUENCES = 4;
    private static final int INPUT = 200;
    private static final int OUTPUT = 40;

    @Test
    void aBurstBringsWorkersWithinTwoIntervalsAndTheyAreDrainedAfterItWithoutAFailedRequest() throws Exception {
        PlannerConfig config = new PlannerConfig(Map.of(Pool.AGGREGATED, new PlannerConfig.Bounds(1, 8)), 8,
                Duration.ofSeconds(1), new PlannerConfig.Slo(2000, 60), PlannerConfig.Mode.SLA, "kalman", 2);
        Cluster cluster = Cluster.join("127.0.0.1", 0, null);
        WorkerOptions stage = CommandLine.populateCommand(new WorkerOptions(), "--max-sequences",
                Integer.toString(MAX_SEQUENCES), "--kv-blocks", "512");
        MockEngine engine = MockEngine.open(DemoModel.ensure(), TIMING, 1);
        ScalingConnector connector = new ManagedConnector("in-process", new InProcessWorkers(engine, cluster, stage, "mock"),
                cluster.discovery());
        GatewayOptions options = GatewayOptions.ephemeral();
        List<Decision> decisions = Collections.synchronizedList(new ArrayList<>());
        Report.Run run;
        try (GatewayOptions.FrontDoor front = options.start("127.0.0.1", "mock", engine.metadata(), cluster, null)) {
            connector.scale(Pool.AGGREGATED, 1);
            // the first request must find the worker in the gateway's view (the same discovery the connector reads)
            PlannerSimulateCommand.awaitReady(connector, Map.of(Pool.AGGREGATED, 1));
            PlannerLoop loop = new PlannerLoop(new Planner(config, new PerformanceModel(profile())),
                    new ClusterObserver(cluster.discovery(), cluster.trafficBoard(), 1, System::nanoTime), connector,
                    config, decisions::add).start(1);
            try (HttpTarget target = new HttpTarget(URI.create("http://127.0.0.1:" + front.server().httpPort()), "mock", null)) {
                // 1 request/s for 6 s, 12/s for 8 s, then nothing for 9 s (the last, a marker, at 23 s)
                List<Long> at = new ArrayList<>();
                for (long t = 0; t < 6000; t += 1000) {
                    at.add(t);
                }
                for (long t = 6000; t < 14000; t += 83) {
                    at.add(t);
                }
                at.add(23000L);
                SplittableRandom random = new SplittableRandom(4);
                run = new TraceReplay(target, 1, 16).run(TraceReplay.Schedule.of(at.stream().mapToLong(Long::longValue).toArray()),
                        i -> BenchRequest.tokens(random.ints(INPUT, 3, 250).toArray(), OUTPUT));
            } finally {
                loop.close();
            }
        } finally {
            connector.close();
            cluster.close();
        }
        assertThat(run.results()).as("every request, across every scale change, completed")
                .allMatch(r -> r.outcome().ok() && r.outcome().outputTokens() == OUTPUT);
        // the planner's clock started before the replay's: find the burst by what the intervals saw (the checks
        // between them see a fraction of a second, too little to tell a rate)
        List<Decision> intervals = decisions.stream().filter(PlannerIT::endsAnInterval).toList();
        int burstStart = firstAbove(intervals, 2); // the quiet phase runs at 1 request/s
        int quiet = maxTarget(intervals, 0, burstStart - 1);
        int burst = maxTarget(intervals, burstStart, burstStart + 1);
        // 12 requests/s of 40 tokens on workers of 4 sequences at ~41 ms a step needs 5 of them for decode alone
        assertThat(quiet).as("the quiet phase needs one or two workers").isLessThanOrEqualTo(2);
        assertThat(burst).as("within two intervals of the burst").isGreaterThanOrEqualTo(4);
        assertThat(target(intervals.getLast())).as("after the burst the pool is drained back").isLessThanOrEqualTo(2);
    }

    @Test
    void thePlannersPortAnswersTheStageProbesAndExportsItsMetrics() throws Exception {
        PlannerConfig config = new PlannerConfig(Map.of(Pool.AGGREGATED, new PlannerConfig.Bounds(0, 4)), 4,
                Duration.ofSeconds(1), new PlannerConfig.Slo(2000, 60), PlannerConfig.Mode.SLA, "kalman", 2);
        Cluster cluster = Cluster.join("127.0.0.1", 0, null);
        try (PlannerRun planner = PlannerRun.start(cluster, config, new PerformanceModel(profile()),
                new DryRunConnector(cluster.discovery()), Map.of(), 1, "127.0.0.1", 0)) {
            HttpClient http = HttpClient.newHttpClient();
            URI base = URI.create("http://127.0.0.1:" + planner.metricsPort());
            for (String probe : List.of("/healthz", "/readyz")) {
                assertThat(http.send(HttpRequest.newBuilder(base.resolve(probe)).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode()).as(probe).isEqualTo(200);
            }
            HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(base.resolve("/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(metrics.headers().firstValue("Content-Type")).hasValueSatisfying(
                    type -> assertThat(type).startsWith("text/plain; version=0.0.4"));
            assertThat(metrics.body()).contains("# TYPE squall_planner_replicas gauge",
                    "# TYPE squall_planner_scaling_decisions_total counter");
        } finally {
            cluster.close();
        }
    }

    /** The profile a measurement of {@link #TIMING} would give. */
    private static Profile profile() {
        List<Profile.PrefillPoint> prefill = new ArrayList<>();
        for (int isl : new int[] {64, 200, 512, 1024}) {
            double ms = 0;
            for (int start = 0; start < isl; start += 512) {
                ms += TIMING.seconds(io.squall.functions.engine.mock.StepShape.prefill(Math.min(512, isl - start), start)) * 1e3;
            }
            prefill.add(new Profile.PrefillPoint(isl, ms));
        }
        List<Profile.DecodePoint> decode = new ArrayList<>();
        for (int batch = 1; batch <= MAX_SEQUENCES; batch++) {
            for (int context : new int[] {128, 512}) {
                decode.add(new Profile.DecodePoint(batch, context,
                        TIMING.seconds(io.squall.functions.engine.mock.StepShape.decode(batch, context)) * 1e3));
            }
        }
        return new Profile(Profile.FORMAT, "mock", "test", "derived from the test's timing",
                new Profile.WorkerShape(16, MAX_SEQUENCES, 512, 512 * 16, 4096),
                ProfileTimings.of(TIMING), prefill, decode);
    }

    private static int target(Decision decision) {
        return decision.pools().get(Pool.AGGREGATED).target();
    }

    private static boolean endsAnInterval(Decision decision) {
        return decision.pools().values().stream().noneMatch(plan -> plan.reason().equals("urgent scale up"));
    }

    private static int maxTarget(List<Decision> decisions, int from, int to) {
        return decisions.subList(Math.min(from, decisions.size()), Math.min(to + 1, decisions.size())).stream()
                .mapToInt(PlannerIT::target).max().orElse(0);
    }

    /** The first interval whose observed arrival rate exceeded {@code perSecond}. */
    private static int firstAbove(List<Decision> decisions, double perSecond) {
        for (int i = 0; i < decisions.size(); i++) {
            if (decisions.get(i).observed().traffic().requestsPerSecond() > perSecond) {
                return i;
            }
        }
        throw new AssertionError("the planner never saw the burst");
    }
}
