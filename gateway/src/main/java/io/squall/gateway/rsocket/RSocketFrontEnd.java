package io.squall.gateway.rsocket;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.rsocket.SocketAcceptor;
import io.rsocket.core.RSocketServer;
import io.rsocket.frame.FrameLengthCodec;
import io.rsocket.metadata.WellKnownMimeType;
import io.rsocket.transport.netty.server.CloseableChannel;
import io.rsocket.transport.netty.server.TcpServerTransport;
import io.rsocket.transport.netty.server.WebsocketRouteTransport;
import io.squall.functions.api.rsocket.WellFormedFrames;
import io.squall.gateway.GatewayConfig;
import io.squall.gateway.service.OpenAiService;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.tcp.TcpServer;

import javax.net.ssl.KeyManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;

/**
 * The RSocket client API on two listeners: plain RSocket over TCP, and RSocket over WebSocket at
 * {@code /rsocket} on a reactor-netty HTTP server of its own (Micronaut's HTTP server cannot carry RSocket
 * frames on its WebSocket support without a custom bridge). Both use TLS when configured.
 */
public final class RSocketFrontEnd implements AutoCloseable {

    /** The WebSocket path of the RSocket endpoint. */
    public static final String WEBSOCKET_PATH = "/rsocket";

    private final CloseableChannel tcp;
    private final DisposableServer webSocket;

    private RSocketFrontEnd(CloseableChannel tcp, DisposableServer webSocket) {
        this.tcp = tcp;
        this.webSocket = webSocket;
    }

    /**
     * The RSocket server of the client API ({@code v1.chat}, {@code v1.completions}) over {@code service}: what
     * both listeners and the HTTP port's {@code /rsocket} accept connections with. A request's payload (data and
     * metadata, reassembled from fragments) is capped at the HTTP body limit plus 64 KiB for metadata, or at one
     * whole frame (16 MiB, the least RSocket allows) if that is more, so fragments cannot make the gateway buffer a
     * request of any size; a malformed frame closes its connection before RSocket decodes it ({@link WellFormedFrames}).
     */
    public static RSocketServer server(OpenAiService service, GatewayConfig config) {
        SocketAcceptor acceptor = (setup, sendingSocket) -> Mono.just(new ClientApiResponder(service,
                WellKnownMimeType.MESSAGE_RSOCKET_COMPOSITE_METADATA.getString().equals(setup.metadataMimeType())));
        long cap = Math.max(FrameLengthCodec.FRAME_LENGTH_MASK, config.limits().maxRequestBytes() + (1 << 16));
        return RSocketServer.create(acceptor).interceptors(registry -> registry.forConnection(new WellFormedFrames()))
                .maxInboundPayloadSize((int) Math.min(Integer.MAX_VALUE, cap));
    }

    /** Binds the enabled listeners; returns once they are bound. */
    public static RSocketFrontEnd start(GatewayConfig config, OpenAiService service) {
        RSocketServer server = server(service, config);
        GatewayConfig.Listen listen = config.listen();
        SslContext ssl = config.security().tls() == null ? null : sslContext(config.security().tls());
        CloseableChannel tcp = null;
        DisposableServer webSocket = null;
        try {
            if (listen.rsocketTcpPort() >= 0) {
                TcpServer tcpServer = TcpServer.create().host(listen.host()).port(listen.rsocketTcpPort());
                if (ssl != null) {
                    tcpServer = tcpServer.secure(spec -> spec.sslContext(ssl));
                }
                tcp = server.bind(TcpServerTransport.create(tcpServer)).block(Duration.ofSeconds(30));
            }
            if (listen.rsocketWebSocketPort() >= 0) {
                HttpServer httpServer = HttpServer.create().host(listen.host()).port(listen.rsocketWebSocketPort())
                        .route(routes -> routes.ws(WEBSOCKET_PATH,
                                WebsocketRouteTransport.newHandler(server.asConnectionAcceptor())));
                if (ssl != null) {
                    httpServer = httpServer.secure(spec -> spec.sslContext(ssl));
                }
                webSocket = httpServer.bindNow(Duration.ofSeconds(30));
            }
            return new RSocketFrontEnd(tcp, webSocket);
        } catch (RuntimeException e) {
            if (tcp != null) {
                tcp.dispose();
            }
            throw e;
        }
    }

    private static SslContext sslContext(GatewayConfig.Tls tls) {
        try (InputStream in = Files.newInputStream(tls.keyStore())) {
            KeyStore store = KeyStore.getInstance(tls.type());
            store.load(in, tls.password().toCharArray());
            KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(store, tls.password().toCharArray());
            return SslContextBuilder.forServer(keys).build();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the TLS key store " + tls.keyStore(), e);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot use the TLS key store " + tls.keyStore() + ": " + e.getMessage(), e);
        }
    }

    /** The TCP port, or -1 when disabled. */
    public int tcpPort() {
        return tcp == null ? -1 : tcp.address().getPort();
    }

    /** The WebSocket port, or -1 when disabled. */
    public int webSocketPort() {
        return webSocket == null ? -1 : webSocket.port();
    }

    @Override
    public void close() {
        if (tcp != null) {
            tcp.dispose();
            tcp.onClose().block(Duration.ofSeconds(10));
        }
        if (webSocket != null) {
            webSocket.disposeNow(Duration.ofSeconds(10));
        }
    }
}
