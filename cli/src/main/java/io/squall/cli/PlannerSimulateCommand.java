package io.squall.cli;

import io.squall.cli.model.ModelSpec;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.squall.cli.bench.HttpTarget;
import io.squall.cli.bench.LinePlot;
import io.squall.cli.bench.MooncakeTrace;
import io.squall.cli.bench.Report;
import io.squall.cli.bench.TraceReplay;
import io.squall.functions.worker.MockEngine;
import io.squall.scheduler.Decision;
import io.squall.scheduler.Planner;
import io.squall.scheduler.PlannerConfig;
import io.squall.scheduler.PlannerLoop;
import io.squall.scheduler.Pool;
import io.squall.scheduler.ScalingConnector;
import io.squall.scheduler.connector.ManagedConnector;
import io.squall.scheduler.observe.ClusterObserver;
import io.squall.scheduler.profile.Profile;
import io.squall.scheduler.profile.ProfileFiles;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code squall planner simulate}: a what-if replay. One JVM holds a cluster member, the gateway and mock workers
 * (timed by the profile, at the speedup); the trace is sent open-loop against the gateway while the planner sizes the
 * pools with an in-process connector, or while the pools stay at {@code --fixed} sizes for comparison. Prints and
 * writes the replicas over time, SLO attainment (the share of requests within both targets) and the worker-seconds
 * used, with a PNG beside the JSON.
 */
@Command(name = "simulate", description = "Replay a trace against mock workers with the planner in the loop (or at "
        + "fixed sizes) and report replicas over time, SLO attainment and worker-seconds.")
final class PlannerSimulateCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--trace", required = true, description = "a trace in the Mooncake format")
    Path trace;

    @Option(names = "--trace-block-size", defaultValue = "512", description = "tokens per hash id (default: ${DEFAULT-VALUE})")
    int traceBlockSize;

    @Option(names = "--rate-scale", defaultValue = "1", description = "multiplies the trace's arrival rate (default: ${DEFAULT-VALUE})")
    double rateScale;

    @Option(names = "--model", converter = ModelArgument.class, description = ModelArgument.DESCRIPTION
            + ", whose vocabulary the mock workers use (default: the demo model's)")
    ModelSpec model;

    @Option(names = "--disaggregated", description = "a prefill and a decode pool (default: one aggregated pool)")
    boolean disaggregated;

    @Option(names = "--fixed", description = "no planner: the pools stay at these sizes, e.g. --fixed aggregated=4")
    Map<String, Integer> fixed;

    @Option(names = "--seed", defaultValue = "0", description = "prompt synthesis seed (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--out", required = true, description = "the report (JSON); the PNG is written beside it")
    Path out;

    @CommandLine.Mixin
    PlannerOptions planner;

    @CommandLine.Mixin
    EngineOptions engine;

    @CommandLine.Mixin
    WorkerOptions stage;

    @Override
    public Integer call() throws Exception {
        if (engine.profile == null) {
            throw new IllegalArgumentException("--profile is required: the mock workers' timing and the planner's model");
        }
        engine.engine = "mock";
        Profile profile = ProfileFiles.read(engine.profile);
        stage.defaultsFrom(profile);
        PlannerConfig config = planner.config(disaggregated);
        String steps = PlannerOptions.stepWarning(config, engine.profile, stage.batch().maxBatchedTokens());
        if (steps != null) {
            System.err.println("squall planner simulate: WARNING: " + steps);
        }
        Path vocabulary = model != null ? ModelArgument.file(model) : DemoModel.ensure();
        MockEngine mock = engine.mockEngine(vocabulary);
        double speedup = engine.speedup;
        Cluster cluster = Cluster.join("127.0.0.1", 0, null);
        ScalingConnector connector = new ManagedConnector("in-process", new InProcessWorkers(mock, cluster, stage, "mock"),
                cluster.discovery());
        GatewayOptions gatewayOptions = GatewayOptions.ephemeral();
        List<Decision> decisions = Collections.synchronizedList(new ArrayList<>());
        Report.Run run;
        try (GatewayOptions.FrontDoor front = gatewayOptions.start("127.0.0.1", "mock", mock.metadata(), cluster, null)) {
            Map<Pool, Integer> initial = new EnumMap<>(Pool.class);
            config.pools().forEach((pool, bounds) -> initial.put(pool, fixed == null ? bounds.min()
                    : fixed.getOrDefault(pool.name().toLowerCase(Locale.ROOT), bounds.min())));
            initial.forEach(connector::scale);
            awaitReady(connector, initial);
            PlannerLoop loop = new PlannerLoop(new Planner(config, PlannerOptions.model(config, engine.profile)),
                    new ClusterObserver(cluster.discovery(), cluster.trafficBoard(), speedup, System::nanoTime), fixed == null
                    ? connector : new Fixed(connector), config, decisions::add);
            loop.start(speedup);
            try (HttpTarget target = new HttpTarget(URI.create("http://127.0.0.1:" + front.server().httpPort()), "mock", null)) {
                MooncakeTrace replay = MooncakeTrace.read(trace, traceBlockSize, MooncakeTrace.alphabet(target), seed);
                run = replay.replay(new TraceReplay(target, speedup * rateScale, profile.worker().blockSize()));
            } finally {
                loop.close();
            }
        } finally {
            connector.close();
            cluster.close();
        }
        Map<String, Object> report = SimulationReport.of(decisions, run, config, speedup, fixed != null);
        ObjectMapper json = new ObjectMapper();
        spec.commandLine().getOut().println(json.writeValueAsString(Map.of("slo_attainment", report.get("slo_attainment"),
                "worker_seconds", report.get("worker_seconds"), "requests", report.get("requests"),
                "errors", report.get("errors"))));
        Path parent = out.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        json.copy().enable(SerializationFeature.INDENT_OUTPUT).writeValue(out.toFile(), report);
        LinePlot.write("squall planner simulate: " + trace.getFileName() + (fixed == null ? " (planner)" : " (fixed " + fixed + ")"),
                "simulated seconds", SimulationReport.panels(decisions, config), parent.resolve(
                        out.getFileName().toString().replaceFirst("\\.json$", "") + ".png"));
        return 0;
    }

    /** Waits until the workers {@code wanted} are in the discovery view the gateway routes over. */
    static void awaitReady(ScalingConnector connector, Map<Pool, Integer> wanted) throws InterruptedException {
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (wanted.entrySet().stream().anyMatch(e -> connector.replicas(e.getKey()).ready() < e.getValue())) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the simulation's first workers did not become ready in 2 minutes");
            }
            Thread.sleep(50);
        }
    }

    /** A connector the planner cannot move: the baseline of fixed sizes. */
    private record Fixed(ScalingConnector inner) implements ScalingConnector {
        @Override
        public String name() {
            return "fixed";
        }

        @Override
        public io.squall.scheduler.Replicas replicas(Pool pool) {
            return inner.replicas(pool);
        }

        @Override
        public void scale(Pool pool, int replicas) {
        }
    }
}
