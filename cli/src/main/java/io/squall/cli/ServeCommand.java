package io.squall.cli;

import io.squall.cli.model.ModelSpec;
import io.squall.functions.api.auth.ClusterSecret;
import io.squall.functions.discovery.WorkerRole;
import io.squall.functions.engine.gguf.GgufFile;
import io.squall.functions.engine.model.Model;
import io.squall.scheduler.PlannerConfig;
import io.squall.scheduler.Pool;
import io.squall.scheduler.sizing.PerformanceModel;
import io.squall.functions.worker.Engine;
import io.squall.functions.worker.ModelSource;
import io.squall.functions.worker.WorkerConfig;
import io.squall.functions.worker.micronaut.WorkerApplication;
import io.squall.kernels.Kernels;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;

/**
 * {@code squall serve}: the graph in one JVM: an embedded cluster member, workers sharing one loaded model
 * and one kernel pool ({@code --workers} aggregated ones, or {@code --prefill-workers} prefill and
 * {@code --decode-workers} decode ones for disaggregated prefill), and the OpenAI gateway in front of
 * them. Serves until SIGINT/SIGTERM.
 */
@Command(name = "serve", description = "Serve a model in one JVM: an embedded cluster member, workers and the OpenAI gateway.")
final class ServeCommand implements Callable<Integer> {

    @picocli.CommandLine.Mixin
    KernelOption kernelOption;

    @Option(names = "--model", converter = ModelArgument.class, description = ModelArgument.DESCRIPTION
            + " (default: a demo model with random weights; with --engine mock only its vocabulary is read)")
    ModelSpec model;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "address to bind (default: ${DEFAULT-VALUE})")
    String host;

    @CommandLine.Mixin
    GatewayOptions gateway;

    @Option(names = "--grid-port", defaultValue = "5701", description = "the embedded cluster member's port (default: ${DEFAULT-VALUE})")
    int gridPort;

    @Option(names = "--workers", description = "aggregated workers (default: 1, or 0 with --prefill-workers/--decode-workers)")
    Integer workers;

    @Option(names = "--prefill-workers", defaultValue = "0", description = "prefill workers (default: ${DEFAULT-VALUE})")
    int prefillWorkers;

    @Option(names = "--decode-workers", defaultValue = "0", description = "decode workers (default: ${DEFAULT-VALUE})")
    int decodeWorkers;

    @CommandLine.Mixin
    WorkerOptions stage;

    @CommandLine.Mixin
    ClusterSecretOption clusterSecret;

    @Option(names = "--warmup-and-exit", hidden = true,
            description = "once serving, send a few requests through the gateway, then stop: the AOT cache's training workload")
    boolean warmupAndExit;

    @CommandLine.Mixin
    EngineOptions engine;

    @Option(names = "--planner", description = "the planner sizes the pools: workers run as processes it starts "
            + "and drains (--connector local), starting from --workers or --prefill-workers/--decode-workers")
    boolean planner;

    @Option(names = "--connector", defaultValue = "local", description = "with --planner: local or dry-run "
            + "(default: ${DEFAULT-VALUE})")
    String connector;

    @Option(names = "--planner-metrics-port", defaultValue = "9400", description = "with --planner: its /metrics "
            + "(default: ${DEFAULT-VALUE})")
    int plannerMetricsPort;

    @CommandLine.Mixin
    PlannerOptions plannerOptions;

    @Override
    public Integer call() throws Exception {
        boolean disaggregated = prefillWorkers > 0 || decodeWorkers > 0;
        if (disaggregated && (prefillWorkers < 1 || decodeWorkers < 1)) {
            throw new IllegalArgumentException("disaggregated serving needs at least one of each: --prefill-workers and --decode-workers");
        }
        int aggregated = workers != null ? workers : disaggregated ? 0 : 1;
        if (aggregated < 0 || prefillWorkers < 0 || decodeWorkers < 0 || aggregated + decodeWorkers == 0) {
            throw new IllegalArgumentException("--workers must be at least 1 (or give --prefill-workers and --decode-workers)");
        }
        Duration kernelWarmup = engine.kernelWarmup();
        Path file;
        if (model == null) {
            file = DemoModel.ensure();
            if (!engine.mock()) {
                System.err.println("squall serve: WARNING: no --model given; serving the demo model " + file
                        + " whose weights are RANDOM (its output is noise). Pass --model FILE.gguf or "
                        + "--model hf:OWNER/REPO/FILE.gguf for a real model.");
            }
        } else {
            file = ModelArgument.file(model);
        }
        stage.defaultsFrom(engine.profileIfMock());
        if (planner) {
            return servePlanned(file, disaggregated, aggregated);
        }
        ClusterSecret secret = clusterSecret.secret();
        Starting<Cluster> joining = Starting.start("squall-cluster-join",
                () -> Cluster.join(host, gridPort, null, secret, stage.gridBlocks));
        List<AutoCloseable> owned = new ArrayList<>();
        ModelSource source;
        Engine shared;
        try {
            if (engine.mock()) {
                source = ModelSource.of(engine.mockEngine(file));
            } else {
                Model loaded = Model.load(file);
                owned.add(loaded);
                Kernels kernels = Kernels.best();
                owned.addFirst(kernels); // closed before the model, after the stages
                source = ModelSource.shared(loaded, kernels);
            }
            shared = source.open();
            shared.warmUp(kernelWarmup); // while the member joins, before any worker registers
        } catch (RuntimeException | Error e) {
            joining.abandon();
            Cluster.closeAll(owned.toArray(AutoCloseable[]::new));
            throw e;
        }
        Cluster cluster = joining.get();
        List<AutoCloseable> stages = new ArrayList<>();
        List<WorkerRole> roles = new ArrayList<>();
        roles.addAll(Collections.nCopies(prefillWorkers, WorkerRole.PREFILL));
        roles.addAll(Collections.nCopies(decodeWorkers, WorkerRole.DECODE));
        roles.addAll(Collections.nCopies(aggregated, WorkerRole.AGGREGATED));
        for (int i = 0; i < roles.size(); i++) {
            WorkerApplication worker = WorkerApplication.start(new WorkerConfig(roles.get(i), host, 0, 0,
                    Cluster.NAME, stage.batch(), stage.kv(roles.size() > 1 ? "worker-" + i : null), stage.context(),
                    stage.disaggregation(), secret, gateway.modelId(file), null), source, cluster.discovery(), cluster.kvSharing(stage.g4));
            stages.add(worker);
            try {
                worker.worker().ready().get();
            } catch (ExecutionException e) { // e.g. KV tiers too large for the memory: one line, as bad options get
                stages.addAll(owned); // closed as a shutdown closes them
                Cluster.closeAll(stages.toArray(AutoCloseable[]::new));
                cluster.close();
                throw new IllegalStateException("worker " + i + " failed to start: " + e.getCause().getMessage(), e.getCause());
            }
            System.err.println("squall serve: worker " + i + " (" + roles.get(i).name().toLowerCase(Locale.ROOT)
                    + ") metrics on http://" + host + ":" + worker.port() + "/metrics");
        }
        GatewayOptions.FrontDoor front = gateway.start(host, gateway.modelId(file), shared.metadata(), cluster, engine.profile);
        stages.addFirst(front);
        stages.addAll(owned);
        System.err.println("squall serve: " + describe(aggregated) + " serving " + gateway.modelId(file) + " on "
                + shared.describe() + "; OpenAI API on http://" + host + ":" + front.server().httpPort()
                + "/v1, RSocket tcp " + host + ":" + front.server().rsocketTcpPort() + " and ws://" + host + ":"
                + front.server().rsocketWebSocketPort() + "/rsocket; cluster member " + cluster.address());
        if (warmupAndExit) {
            Warmup.exercise(URI.create("http://" + host + ":" + front.server().httpPort()), gateway.modelId(file));
            Cluster.closeAll(stages.toArray(AutoCloseable[]::new));
            cluster.close();
            return 0;
        }
        cluster.awaitShutdown(stages.toArray(AutoCloseable[]::new));
        return 0;
    }

    /** The gateway in this JVM; the workers are processes the planner starts, sizes and drains. */
    private int servePlanned(Path file, boolean disaggregated, int aggregated) throws Exception {
        PlannerConfig config = plannerOptions.config(disaggregated);
        PerformanceModel performance = PlannerOptions.model(config, engine.profile);
        String steps = PlannerOptions.stepWarning(config, engine.profile, stage.batch().maxBatchedTokens());
        if (steps != null) {
            System.err.println("squall serve: WARNING: " + steps);
        }
        GgufFile gguf = GgufFile.open(file);
        ClusterSecret secret = clusterSecret.secret();
        Cluster cluster = Cluster.join(host, gridPort, null, secret);
        GatewayOptions.FrontDoor front = gateway.start(host, gateway.modelId(file), gguf.metadata(), cluster, engine.profile);
        Map<Pool, Integer> initial = new EnumMap<>(Pool.class);
        if (disaggregated) {
            initial.put(Pool.PREFILL, prefillWorkers);
            initial.put(Pool.DECODE, decodeWorkers);
        } else {
            initial.put(Pool.AGGREGATED, aggregated);
        }
        List<String> args = new ArrayList<>(List.of("--model", file.toAbsolutePath().toString(),
                "--served-model-name", gateway.modelId(file)));
        args.addAll(engine.asArguments());
        args.addAll(stage.asArguments());
        args.addAll(clusterSecret.asArguments());
        PlannerRun run = PlannerRun.start(cluster, config, performance, PlannerRun.connector(connector, cluster,
                        new WorkerLauncher(cluster.address(), host, args, stage.diskDir), host,
                        Path.of(System.getProperty("java.io.tmpdir"), "squall-serve-workers")),
                initial, engine.mock() ? engine.speedup : 1, host, plannerMetricsPort);
        System.err.println("squall serve: the planner sizes " + config.pools().keySet() + " of " + gateway.modelId(file)
                + " (" + config.mode() + " mode, TTFT " + plannerOptions.ttftMs + " ms, ITL " + plannerOptions.itlMs
                + " ms) through the " + run.connectorName() + " connector, starting from " + initial
                + "; OpenAI API on http://" + host + ":" + front.server().httpPort() + "/v1; planner metrics on http://"
                + host + ":" + run.metricsPort() + "/metrics; cluster member " + cluster.address());
        cluster.awaitShutdown(front, run, gguf);
        return 0;
    }

    private String describe(int aggregated) {
        return prefillWorkers + decodeWorkers == 0 ? aggregated + " worker(s)" : prefillWorkers + " prefill, "
                + decodeWorkers + " decode" + (aggregated > 0 ? " and " + aggregated + " aggregated" : "") + " worker(s)";
    }
}
