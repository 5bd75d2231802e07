package io.squall.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.exporter.common.TextFormat;

import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * The planner process's HTTP port: {@code /healthz} and {@code /metrics} (Prometheus text format 0.0.4) on the JDK's
 * own server, which a process with no other HTTP needs is enough for.
 */
final class MetricsEndpoint implements AutoCloseable {

    private final HttpServer server;

    MetricsEndpoint(String host, int port, CollectorRegistry registry) {
        try {
            server = HttpServer.create(new InetSocketAddress(host, port), 16);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot bind " + host + ":" + port, e);
        }
        server.createContext("/healthz", exchange -> reply(exchange, "text/plain; charset=utf-8", "ok\n"));
        server.createContext("/metrics", exchange -> {
            StringWriter out = new StringWriter();
            TextFormat.write004(out, registry.metricFamilySamples());
            reply(exchange, TextFormat.CONTENT_TYPE_004, out.toString());
        });
        server.start();
    }

    int port() {
        return server.getAddress().getPort();
    }

    private static void reply(HttpExchange exchange, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.sendResponseHeaders(200, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
