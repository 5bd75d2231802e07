package io.squall.gateway.http;

import io.squall.functions.stage.StageEndpoints;
import io.squall.functions.stage.StageServer;
import io.squall.gateway.GatewayConfig;
import io.squall.gateway.metrics.GatewayMetrics;
import io.squall.gateway.service.OpenAiService;

import java.util.Map;
import java.util.Objects;

/**
 * The gateway's HTTP server: a {@link StageServer} (a Micronaut application context of its own, so several
 * gateways can share a JVM) holding the OpenAI, operations and error controllers beside the stage's
 * {@code /healthz}, {@code /readyz}, {@code /metrics} and {@code /rsocket} (the RSocket client API over WebSocket
 * on the same port, as Knative's one port needs), served by Micronaut's Netty server, with TLS when configured.
 */
public final class MicronautHttpFrontEnd implements AutoCloseable {

    /** Set in the gateway's context only, so the controllers never load into another stage's context. */
    static final String ENABLED_PROPERTY = "squall.gateway.http.enabled";

    private final StageServer server;

    private MicronautHttpFrontEnd(StageServer server) {
        this.server = server;
    }

    /** Starts serving {@code service} and the stage's {@code endpoints}; returns once the port is bound. */
    public static MicronautHttpFrontEnd start(GatewayConfig config, OpenAiService service, GatewayMetrics metrics,
                                              StageEndpoints endpoints) {
        Objects.requireNonNull(config, "config");
        Map<String, Object> properties = StageServer.listen(config.listen().host(), config.listen().httpPort());
        properties.put(ENABLED_PROPERTY, "true");
        properties.put("micronaut.server.max-request-size", config.limits().maxRequestBytes());
        int port = config.listen().httpPort() == 0 ? -1 : config.listen().httpPort();
        GatewayConfig.Tls tls = config.security().tls();
        if (tls != null) {
            properties.remove("micronaut.server.port");
            properties.put("micronaut.server.ssl.enabled", true);
            properties.put("micronaut.server.ssl.port", port);
            properties.put("micronaut.server.ssl.key-store.path", "file:" + tls.keyStore().toAbsolutePath());
            properties.put("micronaut.server.ssl.key-store.password", tls.password());
            properties.put("micronaut.server.ssl.key-store.type", tls.type());
        }
        return new MicronautHttpFrontEnd(StageServer.start(endpoints, properties, service, metrics));
    }

    /** The bound port. */
    public int port() {
        return server.port();
    }

    @Override
    public void close() {
        server.close();
    }
}
