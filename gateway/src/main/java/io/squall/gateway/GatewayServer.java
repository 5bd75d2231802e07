package io.squall.gateway;

import io.squall.functions.stage.StageEndpoints;
import io.squall.gateway.admission.InFlightLimiter;
import io.squall.gateway.http.MicronautHttpFrontEnd;
import io.squall.gateway.metrics.GatewayMetrics;
import io.squall.gateway.rsocket.RSocketFrontEnd;
import io.squall.gateway.security.ApiKeyGuard;
import io.squall.gateway.service.ModelRegistry;
import io.squall.gateway.service.OpenAiService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.Objects;

/**
 * A running gateway: the OpenAI HTTP API with {@code /healthz}, {@code /readyz}, {@code /metrics} and the RSocket
 * client API over WebSocket ({@code /rsocket}) on its one HTTP port, and the RSocket client API on its own TCP and
 * WebSocket listeners too, serving the given models. Start with {@link #start}, stop with {@link #close()}.
 *
 * <p>Thread-safe. Several gateways may run in one JVM; each has its own Micronaut context and metrics registry.
 */
public final class GatewayServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(GatewayServer.class);

    private final GatewayMetrics metrics;
    private final MicronautHttpFrontEnd http;
    private final RSocketFrontEnd rsocket;
    private final InFlightLimiter limiter;

    private GatewayServer(GatewayMetrics metrics, MicronautHttpFrontEnd http, RSocketFrontEnd rsocket,
                          InFlightLimiter limiter) {
        this.metrics = metrics;
        this.http = http;
        this.rsocket = rsocket;
        this.limiter = limiter;
    }

    /**
     * Starts serving; returns once every listener is bound.
     *
     * @param config the configuration
     * @param models model name → endpoint, in the order {@code /v1/models} lists them; not empty
     * @throws IllegalArgumentException if the models or TLS settings are unusable
     */
    public static GatewayServer start(GatewayConfig config, Map<String, ModelEndpoint> models) {
        Objects.requireNonNull(config, "config");
        ModelRegistry registry = new ModelRegistry(models);
        GatewayConfig.Limits limits = config.limits();
        InFlightLimiter limiter = new InFlightLimiter(limits.maxInFlight(), limits.maxQueued());
        GatewayMetrics metrics = new GatewayMetrics(limiter::inFlight, limiter::queued);
        ApiKeyGuard guard = new ApiKeyGuard(config.security().apiKeys(), config.security().rateLimit(), System::nanoTime);
        OpenAiService service = new OpenAiService(registry, guard, limiter, metrics, limits.requestTimeout());
        // the HTTP port also carries the client API over WebSocket (/rsocket): Knative gives a container one port
        StageEndpoints endpoints = new StageEndpoints(() -> !limiter.draining(), metrics::scrape,
                RSocketFrontEnd.server(service, config).asConnectionAcceptor());
        MicronautHttpFrontEnd http = MicronautHttpFrontEnd.start(config, service, metrics, endpoints);
        RSocketFrontEnd rsocket;
        try {
            rsocket = RSocketFrontEnd.start(config, service);
        } catch (RuntimeException e) {
            http.close();
            throw e;
        }
        GatewayServer server = new GatewayServer(metrics, http, rsocket, limiter);
        LOG.info("gateway serving {} model(s) {} on HTTP{} :{}, RSocket TCP :{}, RSocket WebSocket :{}{}; API keys {}",
                models.size(), models.keySet(), config.security().tls() == null ? "" : "S", server.httpPort(),
                server.rsocketTcpPort(), server.rsocketWebSocketPort(), RSocketFrontEnd.WEBSOCKET_PATH,
                config.security().apiKeys().isEmpty() ? "off" : "on (" + config.security().apiKeys().size() + ")");
        models.forEach((name, endpoint) -> {
            if (endpoint.randomWeights()) {
                LOG.info("model {} has RANDOM WEIGHTS: it produces meaningless text", name);
            }
        });
        return server;
    }

    /** The HTTP (or HTTPS) port. */
    public int httpPort() {
        return http.port();
    }

    /** The RSocket TCP port, or -1 when disabled. */
    public int rsocketTcpPort() {
        return rsocket.tcpPort();
    }

    /** The RSocket WebSocket port (path {@code /rsocket}), or -1 when disabled. */
    public int rsocketWebSocketPort() {
        return rsocket.webSocketPort();
    }

    /** The gateway's metrics, e.g. to register more collectors beside them. */
    public GatewayMetrics metrics() {
        return metrics;
    }

    /**
     * Drains the gateway before it stops (SIGTERM): {@code /readyz} turns 503 so the platform stops sending it
     * requests, new requests are refused with 503, and the returned future completes once the requests in flight
     * have finished. The caller bounds the wait by its grace period, then {@link #close()}s.
     */
    public CompletableFuture<Void> drain() {
        return limiter.drain();
    }

    /** Stops the listeners; in-flight streams are cut off. */
    @Override
    public void close() {
        try {
            rsocket.close();
        } finally {
            http.close();
        }
    }
}
