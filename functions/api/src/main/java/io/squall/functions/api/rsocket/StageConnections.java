package io.squall.functions.api.rsocket;

import io.rsocket.RSocket;
import io.rsocket.core.RSocketConnector;
import io.rsocket.frame.decoder.PayloadDecoder;
import io.rsocket.transport.ClientTransport;
import io.rsocket.transport.netty.client.TcpClientTransport;
import io.rsocket.transport.netty.client.WebsocketClientTransport;
import reactor.core.publisher.Mono;

import java.net.URI;

/**
 * Opens RSocket connections to stages with Squall's SETUP: composite metadata carrying routes, data in
 * the binary wire format. The returned {@link Mono} connects once per subscription; the caller closes
 * the {@link RSocket} with {@code dispose()}.
 */
public final class StageConnections {

    private StageConnections() {
    }

    /** RSocket over TCP to {@code host:port}. */
    public static Mono<RSocket> tcp(String host, int port) {
        return connect(TcpClientTransport.create(host, port));
    }

    /** RSocket over WebSocket, e.g. {@code ws://127.0.0.1:8080/rsocket}. */
    public static Mono<RSocket> websocket(URI uri) {
        return connect(WebsocketClientTransport.create(uri));
    }

    private static Mono<RSocket> connect(ClientTransport transport) {
        return RSocketConnector.create()
                .metadataMimeType(RouteMetadata.METADATA_MIME_TYPE)
                .dataMimeType(RouteMetadata.DATA_MIME_TYPE)
                .payloadDecoder(PayloadDecoder.ZERO_COPY)
                .connect(transport);
    }
}
