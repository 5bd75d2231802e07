package io.squall.cli;

import io.squall.functions.engine.gguf.GgufMetadata;
import io.squall.gateway.GatewayConfig;
import io.squall.gateway.GatewayServer;
import io.squall.gateway.ModelEndpoint;
import io.squall.gateway.routing.KvRoutingPolicy;
import io.squall.gateway.routing.RoutedGenerateService;
import io.squall.gateway.routing.Routers;
import io.squall.scheduler.profile.ProfileFiles;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.List;
import java.util.Map;

/** The gateway's ports and API keys, shared by {@code squall serve} and {@code squall gateway}. */
final class GatewayOptions {

    @Option(names = "--http-port", defaultValue = "8000", description = "OpenAI HTTP API, health and metrics (default: ${DEFAULT-VALUE})")
    int httpPort;

    @Option(names = "--rsocket-port", defaultValue = "7000", description = "RSocket over TCP: v1.chat, v1.completions (default: ${DEFAULT-VALUE})")
    int rsocketPort;

    @Option(names = "--rsocket-ws-port", defaultValue = "8001", description = "RSocket over WebSocket at /rsocket (default: ${DEFAULT-VALUE})")
    int rsocketWebSocketPort;

    @Option(names = "--api-keys", description = "file of accepted API keys, one per line (default: no authentication)")
    Path apiKeys;

    @Option(names = "--served-model-name", description = "the model id clients send (default: the file name without .gguf)")
    String servedModelName;

    @Option(names = "--router", defaultValue = "kv", converter = RouterName.class,
            description = "how requests pick a worker: kv (KV-cache-aware, from the workers' KV events), kv-approx (KV-aware "
                    + "from the router's own decisions, for workers that publish no KV events), round-robin, random or "
                    + "least-loaded (default: ${DEFAULT-VALUE})")
    Routers router;

    @Option(names = "--router-ttl-seconds", defaultValue = "120",
            description = "kv-approx router: how long a routed prefix is assumed to stay cached on its worker (default: ${DEFAULT-VALUE})")
    int routerTtlSeconds;

    /** Reads {@code --router} by the names {@link Routers#cliName()} gives. */
    static final class RouterName extends ParsingConverter<Routers> {
        RouterName() {
            super(Routers::parse);
        }
    }

    @Option(names = "--kv-overlap-weight", defaultValue = "1.0",
            description = "kv router: weight of prefill work against decode load (default: ${DEFAULT-VALUE})")
    double overlapWeight;

    @Option(names = "--router-profile", paramLabel = "P.json|none",
            description = "kv and kv-approx routers: the workers' profile (squall bench profile), to cost each route in "
                    + "predicted milliseconds (queued prefill, the prompt's uncached tokens, its output at the batch's "
                    + "ITL, and the delay its prefill and decode add to the sequences already there) instead of "
                    + "weighted blocks; squall serve routes by its workers' --profile unless this says none")
    String routerProfile;

    @Option(names = "--router-temperature", defaultValue = "0",
            description = "kv router: 0 picks the lowest cost, above 0 samples by a softmax of the costs (default: ${DEFAULT-VALUE})")
    double routerTemperature;

    /** The defaults on free ports: a gateway inside a simulation or a test. */
    static GatewayOptions ephemeral() {
        return CommandLine.populateCommand(new GatewayOptions(), "--http-port", "0", "--rsocket-port", "0",
                "--rsocket-ws-port", "0");
    }

    /** The id clients use for the model in {@code file}. */
    String modelId(Path file) {
        return modelId(file, servedModelName);
    }

    /**
     * The id clients use for the model in {@code file}: {@code servedName} when given, else the file name without
     * {@code .gguf}. Gateways and workers name a model by this one rule, so they agree on it.
     */
    static String modelId(Path file, String servedName) {
        return servedName != null ? servedName : file.getFileName().toString().replaceFirst("\\.gguf$", "");
    }

    /** How often a gateway publishes its traffic for planners. */
    private static final Duration TRAFFIC_PERIOD = Duration.ofSeconds(1);

    /** {@code --router-profile none}: cost routes in weighted blocks even where the workers' profile is known. */
    private static final String NO_PROFILE = "none";

    /** A running gateway, the route it sends requests by and its traffic publisher; closing stops them. */
    record FrontDoor(GatewayServer server, RoutedGenerateService route, ScheduledExecutorService traffic)
            implements AutoCloseable {
        @Override
        public void close() {
            traffic.shutdownNow();
            server.close();
            route.close();
        }
    }

    /** One snapshot of the gateway's traffic onto the cluster's board; a failure is retried at the next period. */
    private static void publish(GatewayServer server, Cluster cluster) {
        try {
            cluster.trafficBoard().publish(server.metrics().traffic().snapshot(System.currentTimeMillis()));
        } catch (RuntimeException e) {
            LoggerFactory.getLogger(GatewayOptions.class).debug("publishing the gateway's traffic failed", e);
        }
    }

    /**
     * The kv routers' cost: in predicted time by {@code --router-profile}, else by {@code workersProfile} (the profile
     * the workers were started with; null when none is known), else in weighted blocks.
     */
    KvRoutingPolicy.Config kvConfig(Path workersProfile) {
        KvRoutingPolicy.Config blocks = new KvRoutingPolicy.Config(overlapWeight,
                KvRoutingPolicy.Config.defaults().lowerTierWeight(), routerTemperature, null);
        Path profile = routerProfile == null ? workersProfile
                : routerProfile.equals(NO_PROFILE) ? null : Path.of(routerProfile);
        return profile == null ? blocks : blocks.withLatency(ProfileLatency.of(ProfileFiles.read(profile)));
    }

    /**
     * Starts the gateway on {@code host} for one model whose tokenizer and chat template come from
     * {@code metadata}, routing its requests by {@code --router} over the workers the cluster's discovery reports,
     * proving the cluster's secret to them, with the kv routers' cost of {@link #kvConfig}.
     */
    FrontDoor start(String host, String modelName, GgufMetadata metadata, Cluster cluster, Path workersProfile) {
        KvRoutingPolicy.Config kvConfig = kvConfig(workersProfile);
        List<String> keys = apiKeys == null ? List.of() : GatewayConfig.readApiKeys(apiKeys);
        GatewayConfig config = GatewayConfig.defaults()
                .withListen(new GatewayConfig.Listen(host, httpPort, rsocketPort, rsocketWebSocketPort))
                .withSecurity(new GatewayConfig.Security(keys, null, null));
        RoutedGenerateService route = new RoutedGenerateService(cluster.discovery(), modelName,
                router.policy(kvConfig, Duration.ofSeconds(routerTtlSeconds),
                        () -> new KvRoutingPolicy(cluster.kvEventTopic(), cluster.blockDirectory(), kvConfig)),
                cluster.secret());
        try {
            GatewayServer server = GatewayServer.start(config,
                    Map.of(modelName, ModelEndpoint.fromGguf(metadata, route, route)));
            ScheduledExecutorService traffic = Executors.newSingleThreadScheduledExecutor(
                    Thread.ofPlatform().name("squall-traffic").daemon(true).factory());
            traffic.scheduleAtFixedRate(() -> publish(server, cluster), 0, TRAFFIC_PERIOD.toMillis(), TimeUnit.MILLISECONDS);
            return new FrontDoor(server, route, traffic);
        } catch (RuntimeException e) {
            route.close();
            throw e;
        }
    }
}
