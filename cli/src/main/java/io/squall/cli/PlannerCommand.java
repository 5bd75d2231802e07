package io.squall.cli;

import io.squall.cli.model.ModelSpec;
import io.squall.scheduler.PlannerConfig;
import io.squall.knative.graph.Graph;
import io.squall.knative.graph.GraphYaml;
import io.squall.knative.scaling.KnativeScalingConnector;
import io.squall.scheduler.Pool;
import io.squall.scheduler.ScalingConnector;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code squall planner}: the planner as a process of its own. It joins the cluster, reads the workers' load and the
 * gateways' traffic every interval, sizes the pools against the latency targets and applies the sizes through its
 * connector: {@code local} starts and drains {@code squall worker} processes on this machine, {@code dry-run} only
 * logs. {@code squall planner simulate} replays a trace against mock workers with the planner in the loop.
 */
@Command(name = "planner", description = "Size the worker pools against latency targets (SLA planner).",
        subcommands = PlannerSimulateCommand.class)
final class PlannerCommand implements Callable<Integer> {

    @CommandLine.Mixin
    ClusterSecretOption clusterSecret;

    @Option(names = "--join", description = "a cluster member to join, host:port")
    String join;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "address to bind (default: ${DEFAULT-VALUE})")
    String host;

    @Option(names = "--grid-port", defaultValue = "0", description = "this process's cluster member port (default: any free)")
    int gridPort;

    @Option(names = "--http-port", defaultValue = "9400", description = "/healthz and /metrics (default: ${DEFAULT-VALUE})")
    int httpPort;

    @Option(names = "--connector", defaultValue = "local", description = "local, dry-run or knative (default: ${DEFAULT-VALUE})")
    String connector;

    @Option(names = "--graph", description = "the graph file the stages were deployed from (squall deploy knative): "
            + "its pools, and the Knative services the knative connector scales")
    Path graph;

    @Option(names = "--disaggregated", description = "the graph has a prefill and a decode pool (default: one "
            + "aggregated pool, or what --graph says)")
    boolean disaggregated;

    @Option(names = "--model", converter = ModelArgument.class, description = "local connector: what its workers "
            + "serve; " + ModelArgument.DESCRIPTION)
    ModelSpec model;

    @Option(names = "--worker-arg", description = "local connector: one more argument for every worker it starts "
            + "(repeat for each), e.g. --worker-arg=--kv-blocks --worker-arg=2048")
    List<String> workerArgs = new ArrayList<>();

    @Option(names = "--worker-logs", description = "local connector: where its workers log (default: the temp directory)")
    Path workerLogs;

    @CommandLine.Mixin
    PlannerOptions planner;

    @CommandLine.Mixin
    EngineOptions engine;

    @Override
    public Integer call() throws Exception {
        if (join == null) {
            throw new IllegalArgumentException("--join is required: the cluster member to plan for (or run planner simulate)");
        }
        Graph deployed = graph == null ? null : GraphYaml.read(graph);
        PlannerConfig config = planner.config(deployed != null ? deployed.stages().workers().containsKey(Pool.DECODE)
                : disaggregated);
        if (connector.equals("local") && model == null && !engine.mock()) {
            throw new IllegalArgumentException("the local connector starts workers: give --model (or --engine mock)");
        }
        if (connector.equals("knative") && deployed == null) {
            throw new IllegalArgumentException("the knative connector scales the services of a graph: give --graph");
        }
        Cluster cluster = Cluster.join(host, gridPort, join, clusterSecret.secret());
        Map<Pool, Integer> initial = new EnumMap<>(Pool.class);
        config.pools().forEach((pool, bounds) -> initial.put(pool, bounds.min()));
        ScalingConnector scaling = connector.equals("knative") ? KnativeScalingConnector.fromCurrentContext(deployed)
                : PlannerRun.connector(connector, cluster, new WorkerLauncher(join, host, workerArguments(), null), host,
                        logs());
        PlannerRun run = PlannerRun.start(cluster, config, PlannerOptions.model(config, engine.profile), scaling,
                connector.equals("local") ? initial : Map.of(), engine.mock() ? engine.speedup : 1, host, httpPort);
        System.err.println("squall planner: sizing " + config.pools().keySet() + " every " + planner.intervalSeconds
                + " s for TTFT " + planner.ttftMs + " ms and ITL " + planner.itlMs + " ms (" + config.mode() + " mode) "
                + "through the " + run.connectorName() + " connector; metrics on http://" + host + ":" + run.metricsPort()
                + "/metrics; cluster member " + cluster.address());
        cluster.awaitShutdown(run);
        return 0;
    }

    private List<String> workerArguments() {
        List<String> args = new ArrayList<>();
        if (model != null) {
            args.add("--model");
            args.add(ModelArgument.file(model).toAbsolutePath().toString()); // downloaded once, not by every worker
        }
        args.addAll(engine.asArguments());
        args.addAll(clusterSecret.asArguments());
        args.addAll(workerArgs);
        return args;
    }

    private Path logs() {
        return workerLogs != null ? workerLogs : Path.of(System.getProperty("java.io.tmpdir"), "squall-planner-workers");
    }
}
