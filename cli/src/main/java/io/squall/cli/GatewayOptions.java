package io.squall.cli;

import io.squall.functions.api.discovery.Discovery;
import io.squall.functions.engine.gguf.GgufMetadata;
import io.squall.gateway.GatewayConfig;
import io.squall.gateway.GatewayServer;
import io.squall.gateway.ModelEndpoint;
import io.squall.gateway.routing.RoundRobinGenerateService;
import picocli.CommandLine.Option;

import java.nio.file.Path;
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

    /** The id clients use for the model in {@code file}. */
    String modelId(Path file) {
        return servedModelName != null ? servedModelName : file.getFileName().toString().replaceFirst("\\.gguf$", "");
    }

    /** A running gateway and the route it sends requests by; closing stops both. */
    record FrontDoor(GatewayServer server, RoundRobinGenerateService route) implements AutoCloseable {
        @Override
        public void close() {
            server.close();
            route.close();
        }
    }

    /**
     * Starts the gateway on {@code host} for one model whose tokenizer and chat template come from
     * {@code metadata}, routing its requests round robin over the workers {@code discovery} reports.
     */
    FrontDoor start(String host, String modelName, GgufMetadata metadata, Discovery discovery) {
        List<String> keys = apiKeys == null ? List.of() : GatewayConfig.readApiKeys(apiKeys);
        GatewayConfig config = GatewayConfig.defaults()
                .withListen(new GatewayConfig.Listen(host, httpPort, rsocketPort, rsocketWebSocketPort))
                .withSecurity(new GatewayConfig.Security(keys, null, null));
        RoundRobinGenerateService route = new RoundRobinGenerateService(discovery);
        try {
            GatewayServer server = GatewayServer.start(config, Map.of(modelName, ModelEndpoint.fromGguf(metadata, route)));
            return new FrontDoor(server, route);
        } catch (RuntimeException e) {
            route.close();
            throw e;
        }
    }
}
