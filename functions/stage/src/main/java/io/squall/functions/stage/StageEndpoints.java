package io.squall.functions.stage;

import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.exporter.common.TextFormat;
import io.rsocket.transport.ServerTransport;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * What a stage's port answers: {@code /readyz} is 200 while {@code ready} says so (503 otherwise, e.g. while a
 * worker loads its model or drains), {@code /metrics} is {@code metrics} in the Prometheus text format 0.0.4, and
 * {@code /rsocket} hands each WebSocket connection to {@code rsocket}. {@code /healthz} is 200 while the process
 * serves at all.
 *
 * @param ready whether the stage takes work; called on Netty event loops, must not block
 * @param metrics the metrics exposition; called on an event loop per scrape
 * @param rsocket accepts the RSocket connections of {@code /rsocket}, or {@code null} when the stage has none
 *                (the WebSocket is then closed with a reason)
 */
public record StageEndpoints(BooleanSupplier ready, Supplier<String> metrics, ServerTransport.ConnectionAcceptor rsocket) {

    /** The content type of {@code /metrics}. */
    public static final String PROMETHEUS_TEXT = TextFormat.CONTENT_TYPE_004;

    public StageEndpoints {
        Objects.requireNonNull(ready, "ready");
        Objects.requireNonNull(metrics, "metrics");
    }

    /** The samples of {@code registry} in the Prometheus text format 0.0.4. */
    public static String prometheus(CollectorRegistry registry) {
        StringWriter out = new StringWriter();
        try {
            TextFormat.write004(out, registry.metricFamilySamples());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }
}
