package io.squall.functions.worker.passthrough;

import io.prometheus.client.CollectorRegistry;
import io.rsocket.SocketAcceptor;
import io.rsocket.core.RSocketServer;
import io.rsocket.frame.decoder.PayloadDecoder;
import io.rsocket.transport.netty.server.CloseableChannel;
import io.rsocket.transport.netty.server.TcpServerTransport;
import io.squall.functions.api.GenerateService;
import io.squall.functions.api.discovery.Discovery;
import io.squall.functions.api.discovery.WorkerRole;
import io.squall.functions.worker.http.StageHttpServer;
import io.squall.functions.worker.metrics.MeteredGenerateService;
import io.squall.functions.worker.metrics.WorkerMetrics;
import io.squall.functions.worker.rsocket.StageResponder;
import reactor.netty.DisposableServer;

import java.time.Duration;

/**
 * The front of {@code squall serve} until the gateway lands: the {@code generate} route over RSocket TCP
 * and over WebSocket ({@code /rsocket} on the HTTP port), forwarded by a {@link RoundRobinGenerateService};
 * {@code /readyz} is 200 while at least one worker serves generate; {@code /metrics} has the
 * {@code squall_passthrough_*} request, error, TTFT and ITL metrics as clients see them.
 */
public final class PassthroughServer implements AutoCloseable {

    private final RoundRobinGenerateService forwarder;
    private final CloseableChannel tcp;
    private final DisposableServer http;

    private PassthroughServer(RoundRobinGenerateService forwarder, CloseableChannel tcp, DisposableServer http) {
        this.forwarder = forwarder;
        this.tcp = tcp;
        this.http = http;
    }

    /** Binds both ports (0 picks a free one) on {@code host}. */
    public static PassthroughServer start(String host, int httpPort, int rsocketPort, Discovery discovery) {
        RoundRobinGenerateService forwarder = new RoundRobinGenerateService(discovery);
        CollectorRegistry registry = new CollectorRegistry(true);
        GenerateService metered = new MeteredGenerateService(forwarder, new WorkerMetrics(registry, WorkerMetrics.PASSTHROUGH));
        StageResponder responder = new StageResponder(() -> metered);
        CloseableChannel tcp = RSocketServer.create(SocketAcceptor.with(responder))
                .payloadDecoder(PayloadDecoder.ZERO_COPY)
                .bind(TcpServerTransport.create(host, rsocketPort))
                .block(Duration.ofSeconds(10));
        DisposableServer http = StageHttpServer.start(host, httpPort,
                () -> discovery.instances().stream().anyMatch(w -> w.role() != WorkerRole.PREFILL), registry,
                RSocketServer.create(SocketAcceptor.with(responder)).payloadDecoder(PayloadDecoder.ZERO_COPY)
                        .asConnectionAcceptor());
        return new PassthroughServer(forwarder, tcp, http);
    }

    public int rsocketPort() {
        return tcp.address().getPort();
    }

    public int httpPort() {
        return http.port();
    }

    @Override
    public void close() {
        http.disposeNow(Duration.ofSeconds(5));
        tcp.dispose();
        tcp.onClose().block(Duration.ofSeconds(5));
        forwarder.close();
    }
}
