package io.squall.cli;

import io.squall.functions.api.discovery.WorkerRole;
import io.squall.functions.engine.model.Model;
import io.squall.functions.worker.ModelSource;
import io.squall.functions.worker.WorkerConfig;
import io.squall.functions.worker.micronaut.WorkerApplication;
import io.squall.kernels.Kernels;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code squall serve}: the graph in one JVM: an embedded cluster member, N aggregated workers sharing
 * one loaded model and one kernel pool, and a pass-through {@code generate} endpoint (RSocket TCP on
 * {@code --rsocket-port}, WebSocket at {@code /rsocket} on {@code --http-port}) forwarding round robin
 * until the OpenAI gateway lands. Serves until SIGINT/SIGTERM.
 */
@Command(name = "serve", description = "Serve a model in one JVM: an embedded cluster member, workers and the OpenAI gateway.")
final class ServeCommand implements Callable<Integer> {

    @Option(names = "--model", description = "GGUF model file (default: a demo model with random weights)")
    Path model;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "address to bind (default: ${DEFAULT-VALUE})")
    String host;

    @CommandLine.Mixin
    GatewayOptions gateway;

    @Option(names = "--grid-port", defaultValue = "5701", description = "the embedded cluster member's port (default: ${DEFAULT-VALUE})")
    int gridPort;

    @Option(names = "--workers", defaultValue = "1", description = "aggregated workers (default: ${DEFAULT-VALUE})")
    int workers;

    @CommandLine.Mixin
    WorkerOptions stage;



    @Override
    public Integer call() throws Exception {
        if (workers < 1) {
            throw new IllegalArgumentException("--workers must be at least 1");
        }
        Path file = model;
        if (file == null) {
            file = DemoModel.ensure();
            System.err.println("squall serve: WARNING: no --model given; serving the demo model " + file
                    + " whose weights are RANDOM (its output is noise). Pass --model FILE.gguf for a real model.");
        } else if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("--model " + file + " is not a file");
        }
        Cluster cluster = Cluster.join(host, gridPort, null);
        Model loaded = Model.load(file);
        Kernels kernels = Kernels.best();
        ModelSource shared = ModelSource.shared(loaded, kernels);
        List<AutoCloseable> stages = new ArrayList<>();
        for (int i = 0; i < workers; i++) {
            WorkerApplication worker = WorkerApplication.start(new WorkerConfig(WorkerRole.AGGREGATED, host, 0, 0,
                    Cluster.NAME, stage.batch(), stage.kv(workers > 1 ? "worker-" + i : null), stage.context),
                    shared, cluster.discovery().discovery(), cluster.kvSharing());
            stages.add(worker);
            worker.worker().ready().get();
        }
        GatewayOptions.FrontDoor front = gateway.start(host, gateway.modelId(file), loaded.metadata(), cluster);
        stages.addFirst(front);
        stages.add(kernels);
        stages.add(loaded);
        System.err.println("squall serve: " + workers + " worker(s) serving " + gateway.modelId(file) + " on " + kernels.name()
                + "; OpenAI API on http://" + host + ":" + front.server().httpPort() + "/v1, RSocket tcp " + host + ":"
                + front.server().rsocketTcpPort() + " and ws://" + host + ":" + front.server().rsocketWebSocketPort()
                + "/rsocket; cluster member " + cluster.address());
        cluster.awaitShutdown(stages.toArray(AutoCloseable[]::new));
        return 0;
    }
}
