package io.squall.functions.worker.http;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.exporter.common.TextFormat;
import io.rsocket.transport.ServerTransport;
import io.rsocket.transport.netty.server.WebsocketRouteTransport;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.http.server.WebsocketServerSpec;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * The one HTTP port of a stage (Knative's {@code PORT}): {@code GET /healthz} answers 200 while the
 * process runs; {@code GET /readyz} answers 503 until the stage is ready, then 200; {@code GET /metrics}
 * is the registry in the Prometheus text format 0.0.4; {@code /rsocket} upgrades to a WebSocket carrying
 * RSocket (one RSocket frame per binary WebSocket frame).
 *
 * <p>Served on Netty event loops; no request body is read, nothing is buffered beyond one response.
 */
public final class StageHttpServer {

    /** The largest RSocket frame a WebSocket frame may carry (RSocket's 24-bit frame length). */
    private static final int MAX_FRAME_BYTES = 0xFF_FFFF;

    private StageHttpServer() {
    }

    /**
     * Binds {@code host:port} (0 picks a free port) and serves until the returned server is disposed.
     *
     * @param ready whether {@code /readyz} answers 200
     * @param rsocket accepts the RSocket connections of {@code /rsocket}
     */
    public static DisposableServer start(String host, int port, BooleanSupplier ready, CollectorRegistry registry,
                                         ServerTransport.ConnectionAcceptor rsocket) {
        return HttpServer.create()
                .host(host)
                .port(port)
                .route(routes -> routes
                        .get("/healthz", (request, response) -> response
                                .header(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8")
                                .sendString(Mono.just("ok\n")))
                        .get("/readyz", (request, response) -> {
                            boolean isReady = ready.getAsBoolean();
                            return response.status(isReady ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE)
                                    .header(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8")
                                    .sendString(Mono.just(isReady ? "ready\n" : "not ready\n"));
                        })
                        .get("/metrics", (request, response) -> response
                                .header(HttpHeaderNames.CONTENT_TYPE, TextFormat.CONTENT_TYPE_004)
                                .sendString(Mono.fromCallable(() -> scrape(registry))))
                        .ws("/rsocket", WebsocketRouteTransport.newHandler(rsocket),
                                WebsocketServerSpec.builder().maxFramePayloadLength(MAX_FRAME_BYTES).build()))
                .bindNow(Duration.ofSeconds(10));
    }

    private static String scrape(CollectorRegistry registry) {
        StringWriter out = new StringWriter();
        try {
            TextFormat.write004(out, registry.metricFamilySamples());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }
}
