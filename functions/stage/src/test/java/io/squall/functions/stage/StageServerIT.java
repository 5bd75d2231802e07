package io.squall.functions.stage;

import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.Counter;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.SocketAcceptor;
import io.rsocket.core.RSocketConnector;
import io.rsocket.core.RSocketServer;
import io.rsocket.transport.netty.client.WebsocketClientTransport;
import io.rsocket.util.DefaultPayload;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/** A stage's one port on the real Micronaut server: probes, metrics, and RSocket streams over {@code /rsocket}. */
class StageServerIT {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Test
    void servesProbesMetricsAndRSocketOnOnePort() throws Exception {
        AtomicBoolean ready = new AtomicBoolean(false);
        CollectorRegistry registry = new CollectorRegistry(true);
        Counter.build("squall_test_total", "a test counter").register(registry).inc(3);
        // request-stream: n copies of the request's text, n being its length; a large frame proves the frame limit
        RSocket echo = new RSocket() {
            @Override
            public Flux<Payload> requestStream(Payload payload) {
                String text = payload.getDataUtf8();
                payload.release();
                return Flux.range(0, text.length()).map(i -> DefaultPayload.create(text + i));
            }
        };
        StageEndpoints endpoints = new StageEndpoints(ready::get, () -> StageEndpoints.prometheus(registry),
                RSocketServer.create(SocketAcceptor.with(echo)).asConnectionAcceptor());
        try (StageServer server = StageServer.start(endpoints, StageServer.listen("127.0.0.1", 0))) {
            assertThat(get(server.port(), "/healthz").statusCode()).isEqualTo(200);
            assertThat(get(server.port(), "/readyz").statusCode()).isEqualTo(503);
            ready.set(true);
            assertThat(get(server.port(), "/readyz").statusCode()).isEqualTo(200);
            HttpResponse<String> metrics = get(server.port(), "/metrics");
            assertThat(metrics.headers().firstValue("content-type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/plain"));
            assertThat(metrics.body()).contains("squall_test_total 3.0");

            RSocket client = RSocketConnector.connectWith(WebsocketClientTransport.create(
                    URI.create("ws://127.0.0.1:" + server.port() + "/rsocket"))).block(Duration.ofSeconds(10));
            try {
                List<String> small = client.requestStream(DefaultPayload.create("abc")).map(p -> {
                    String s = p.getDataUtf8();
                    p.release();
                    return s;
                }).collectList().block(Duration.ofSeconds(10));
                assertThat(small).containsExactly("abc0", "abc1", "abc2");
                String big = "x".repeat(200_000); // larger than Netty's default WebSocket frame limit of 64 KiB
                List<Integer> sizes = client.requestStream(DefaultPayload.create(big)).take(2).map(p -> {
                    int n = p.data().readableBytes();
                    p.release();
                    return n;
                }).collectList().block(Duration.ofSeconds(10));
                assertThat(sizes).containsExactly(200_001, 200_001);
            } finally {
                client.dispose();
            }
        }
    }

    private static HttpResponse<String> get(int port, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
