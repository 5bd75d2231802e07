package io.squall.functions.stage;

import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One stage's HTTP port: a Micronaut application context of its own (so several stages can share a JVM, as
 * {@code squall serve} runs them) with Micronaut's Netty server serving the stage's controllers, and, because the
 * context holds the stage's {@link StageEndpoints}, {@code /healthz}, {@code /readyz}, {@code /metrics} and
 * {@code /rsocket}.
 *
 * <p>Handlers run on the Netty event loops ({@code thread-selection: MANUAL}), which keeps the frames of one
 * WebSocket in order. Thread-safe.
 */
public final class StageServer implements AutoCloseable {

    /** The largest RSocket frame a WebSocket message may carry (RSocket's 24-bit frame length). */
    public static final int MAX_FRAME_BYTES = 0xFF_FFFF;

    private final ApplicationContext context;
    private final EmbeddedServer server;

    private StageServer(ApplicationContext context, EmbeddedServer server) {
        this.context = context;
        this.server = server;
    }

    /**
     * The properties of a plain-HTTP server on {@code host:port} (0 picks a free port), to which a stage adds
     * its own.
     */
    public static Map<String, Object> listen(String host, int port) {
        Objects.requireNonNull(host, "host");
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port must be within 0..65535");
        }
        Map<String, Object> properties = new HashMap<>();
        properties.put("micronaut.server.host", host);
        properties.put("micronaut.server.port", port == 0 ? -1 : port);
        return properties;
    }

    /**
     * Starts a context with {@code properties} (see {@link #listen}) and {@code singletons} beside
     * {@code endpoints}, and its server; returns once the port is bound.
     *
     * @throws RuntimeException if the context cannot start or the port cannot be bound (nothing is left open)
     */
    public static StageServer start(StageEndpoints endpoints, Map<String, Object> properties, Object... singletons) {
        Objects.requireNonNull(endpoints, "endpoints");
        Map<String, Object> all = new HashMap<>(properties);
        all.put("micronaut.server.thread-selection", "MANUAL");
        all.put("micronaut.server.netty.server-header", "squall");
        all.put("micronaut.server.date-header", false);
        Object[] beans = new Object[singletons.length + 1];
        beans[0] = endpoints;
        System.arraycopy(singletons, 0, beans, 1, singletons.length);
        ApplicationContext context = ApplicationContext.builder()
                .deduceEnvironment(false)
                .banner(false)
                .properties(all)
                .singletons(beans)
                .start();
        try {
            EmbeddedServer server = context.getBean(EmbeddedServer.class);
            server.start();
            return new StageServer(context, server);
        } catch (RuntimeException e) {
            context.close();
            throw e;
        }
    }

    /** The bound port. */
    public int port() {
        return server.getPort();
    }

    /** The stage's context, e.g. to look up a bean. */
    public ApplicationContext context() {
        return context;
    }

    /** Stops the server (closing open connections) and the context. */
    @Override
    public void close() {
        try {
            server.stop();
        } finally {
            context.close();
        }
    }
}
