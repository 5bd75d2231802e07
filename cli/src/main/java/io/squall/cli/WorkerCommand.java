package io.squall.cli;

import io.squall.cli.model.ModelSpec;
import io.squall.functions.api.auth.ClusterSecret;
import io.squall.functions.discovery.WorkerInstance;
import io.squall.functions.discovery.WorkerRole;
import io.squall.functions.worker.Engine;
import io.squall.functions.worker.ModelSource;
import io.squall.functions.worker.WorkerConfig;
import io.squall.functions.worker.micronaut.WorkerApplication;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;

/**
 * {@code squall worker}: one worker stage that joins a cluster and serves until SIGINT/SIGTERM, then drains (it
 * leaves discovery, its open streams finish within {@code --drain-seconds} or migrate) and exits.
 */
@Command(name = "worker", description = "Run one worker stage (aggregated, prefill or decode) in a cluster.")
final class WorkerCommand implements Callable<Integer> {

    @picocli.CommandLine.Mixin
    KernelOption kernelOption;

    @Option(names = "--role", defaultValue = "aggregated", description = "aggregated, prefill or decode (default: ${DEFAULT-VALUE})")
    String role;

    @Option(names = "--model", converter = ModelArgument.class, description = ModelArgument.DESCRIPTION
            + " (with --engine mock only its vocabulary is read; default there: the demo model's)")
    ModelSpec model;

    @Option(names = "--join", required = true, description = "a cluster member to join, host:port, or k8s:SERVICE.NAMESPACE for the pods behind a headless Kubernetes Service")
    String join;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "address to bind and advertise (default: ${DEFAULT-VALUE})")
    String host;

    @Option(names = "--advertise", description = "host:port other stages reach this worker's RSocket TCP port at, when "
            + "it is not the bound one (a proxy, a NAT, a port forward); discovery advertises this host for the HTTP port too "
            + "(default: --host and the bound --rsocket-port)")
    String advertise;

    @Option(names = "--grid-port", defaultValue = "0", description = "this member's cluster port (default: a free one)")
    int gridPort;

    @Option(names = "--http-port", defaultValue = "0", description = "health, metrics and RSocket over WebSocket (default: a free one)")
    int httpPort;

    @Option(names = "--rsocket-port", defaultValue = "0", description = "RSocket over TCP (default: a free one)")
    int rsocketPort;

    @Option(names = "--drain-seconds", defaultValue = "25",
            description = "on SIGTERM, how long open streams may run on before they migrate to other workers (default: ${DEFAULT-VALUE})")
    int drainSeconds;

    @Option(names = "--served-model-name", description = "the model id this worker advertises and clients send "
            + "(default: the file name without .gguf)")
    String servedModelName;

    @CommandLine.Mixin
    WorkerOptions stage;

    @CommandLine.Mixin
    EngineOptions engine;

    @CommandLine.Mixin
    ClusterSecretOption clusterSecret;

    @Override
    public Integer call() throws Exception {
        if (drainSeconds < 0) {
            throw new IllegalArgumentException("--drain-seconds must not be negative");
        }
        Path file;
        if (model == null && engine.mock()) {
            file = DemoModel.ensure();
        } else if (model == null) {
            throw new IllegalArgumentException("--model is required (except with --engine mock)");
        } else {
            file = ModelArgument.file(model);
        }
        stage.defaultsFrom(engine.profileIfMock());
        ClusterSecret secret = clusterSecret.secret();
        WorkerConfig config = new WorkerConfig(WorkerRole.parse(role), host, httpPort, rsocketPort, Cluster.NAME,
                stage.batch(), stage.kv(), stage.context(), stage.disaggregation(), secret,
                GatewayOptions.modelId(file, servedModelName), advertise == null ? null : WorkerConfig.Address.parse(advertise));
        ModelSource source = engine.mock() ? ModelSource.of(engine.mockEngine(file)) : ModelSource.file(file);
        // the model and the kernels load and warm up while the member joins; the worker takes the engine once it starts
        Duration warmup = engine.kernelWarmup();
        Starting<Engine> opening = Starting.start("squall-model-load", () -> {
            Engine opened = source.open();
            try {
                opened.warmUp(warmup);
            } catch (RuntimeException | Error e) {
                opened.close();
                throw e;
            }
            return opened;
        });
        Cluster cluster = null;
        WorkerApplication worker;
        try {
            cluster = Cluster.join(host, gridPort, join, secret, stage.gridBlocks);
            worker = WorkerApplication.start(config, opening::get, cluster.discovery(), cluster.kvSharing(stage.g4));
        } catch (RuntimeException | Error e) { // the worker never took the engine
            opening.abandon();
            if (cluster != null) {
                cluster.close();
            }
            throw e;
        }
        try {
            WorkerInstance instance = worker.worker().ready().get();
            System.err.println("squall worker: " + instance.id() + " serving " + instance.model().name() + " as " + instance.role()
                    + "; rsocket tcp " + host + ":" + instance.rsocketPort() + ", http " + host + ":" + instance.httpPort()
                    + "; cluster member " + cluster.address());
        } catch (ExecutionException e) {
            worker.close();
            cluster.close();
            throw new IllegalStateException("the worker failed to start: " + e.getCause().getMessage(), e.getCause());
        }
        // SIGTERM (how Knative scales down, and how the planner's local connector stops a worker) drains first
        AutoCloseable drainThenStop = () -> worker.stop(Duration.ofSeconds(drainSeconds));
        cluster.awaitShutdown(drainThenStop);
        return 0;
    }

}
