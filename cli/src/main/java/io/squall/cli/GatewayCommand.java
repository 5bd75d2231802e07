package io.squall.cli;

import io.squall.cli.model.ModelSpec;
import io.squall.functions.api.auth.ClusterSecret;
import io.squall.functions.engine.gguf.GgufFile;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** {@code squall gateway}: the OpenAI gateway as a process of its own, in front of the cluster's workers. */
@Command(name = "gateway", description = "Run the OpenAI-compatible gateway in front of the workers of a cluster.")
final class GatewayCommand implements Callable<Integer> {

    @Option(names = "--join", required = true, description = "a cluster member to join, host:port, or k8s:SERVICE.NAMESPACE for the pods behind a headless Kubernetes Service")
    String join;

    @Option(names = "--model", required = true, converter = ModelArgument.class,
            description = "the model the workers serve (the gateway reads only its tokenizer and chat template); "
                    + ModelArgument.DESCRIPTION)
    ModelSpec model;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "address to bind (default: ${DEFAULT-VALUE})")
    String host;

    @Option(names = "--grid-port", defaultValue = "0", description = "this process's cluster member port (default: any free)")
    int gridPort;

    @Option(names = "--drain-seconds", defaultValue = "25",
            description = "on SIGTERM, how long requests in flight may run on before the gateway stops (default: ${DEFAULT-VALUE})")
    int drainSeconds;

    @CommandLine.Mixin
    GatewayOptions gateway;

    @CommandLine.Mixin
    ClusterSecretOption clusterSecret;

    @Override
    public Integer call() throws Exception {
        if (drainSeconds < 0) {
            throw new IllegalArgumentException("--drain-seconds must not be negative");
        }
        Path path = ModelArgument.file(model);
        ClusterSecret secret = clusterSecret.secret();
        Cluster cluster = Cluster.join(host, gridPort, join, secret);
        GgufFile file = GgufFile.open(path);
        String name = gateway.modelId(path);
        GatewayOptions.FrontDoor front = gateway.start(host, name, file.metadata(), cluster, null);
        System.err.println("squall gateway: serving " + name + " from the workers of cluster member " + cluster.address()
                + "; OpenAI API on http://" + host + ":" + front.server().httpPort() + "/v1");
        // SIGTERM: /readyz turns 503 and new requests are refused while those in flight finish, then the gateway stops
        AutoCloseable drainThenStop = () -> {
            try {
                front.server().drain().get(drainSeconds, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                System.err.println("squall gateway: requests still in flight after " + drainSeconds + " s; stopping");
            } finally {
                front.close();
            }
        };
        cluster.awaitShutdown(drainThenStop, file);
        return 0;
    }
}
