package io.squall.gateway.http;

import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import io.squall.gateway.GatewayConfig;
import io.squall.gateway.metrics.GatewayMetrics;
import io.squall.gateway.service.OpenAiService;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The gateway's HTTP server: a Micronaut application context of its own (so several gateways can share a
 * JVM) holding the OpenAI, operations and error controllers, served by Micronaut's Netty server, with TLS
 * when configured.
 */
public final class MicronautHttpFrontEnd implements AutoCloseable {

    /** Set in the gateway's context only, so the controllers never load into another stage's context. */
    static final String ENABLED_PROPERTY = "squall.gateway.http.enabled";

    private final ApplicationContext context;
    private final EmbeddedServer server;

    private MicronautHttpFrontEnd(ApplicationContext context, EmbeddedServer server) {
        this.context = context;
        this.server = server;
    }

    /** Starts serving {@code service}; returns once the port is bound. */
    public static MicronautHttpFrontEnd start(GatewayConfig config, OpenAiService service, GatewayMetrics metrics) {
        Objects.requireNonNull(config, "config");
        Map<String, Object> properties = new HashMap<>();
        properties.put(ENABLED_PROPERTY, "true");
        properties.put("micronaut.server.host", config.listen().host());
        properties.put("micronaut.server.max-request-size", config.limits().maxRequestBytes());
        properties.put("micronaut.server.netty.server-header", "squall");
        properties.put("micronaut.server.date-header", false);
        int port = config.listen().httpPort() == 0 ? -1 : config.listen().httpPort();
        GatewayConfig.Tls tls = config.security().tls();
        if (tls == null) {
            properties.put("micronaut.server.port", port);
        } else {
            properties.put("micronaut.server.ssl.enabled", true);
            properties.put("micronaut.server.ssl.port", port);
            properties.put("micronaut.server.ssl.key-store.path", "file:" + tls.keyStore().toAbsolutePath());
            properties.put("micronaut.server.ssl.key-store.password", tls.password());
            properties.put("micronaut.server.ssl.key-store.type", tls.type());
        }
        ApplicationContext context = ApplicationContext.builder()
                .deduceEnvironment(false)
                .banner(false)
                .properties(properties)
                .singletons(service, metrics)
                .start();
        try {
            EmbeddedServer server = context.getBean(EmbeddedServer.class);
            server.start();
            return new MicronautHttpFrontEnd(context, server);
        } catch (RuntimeException e) {
            context.close();
            throw e;
        }
    }

    /** The bound port. */
    public int port() {
        return server.getPort();
    }

    @Override
    public void close() {
        server.stop();
        context.close();
    }
}
