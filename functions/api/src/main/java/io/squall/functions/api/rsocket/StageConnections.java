package io.squall.functions.api.rsocket;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketConnector;
import io.rsocket.frame.decoder.PayloadDecoder;
import io.rsocket.metadata.AuthMetadataCodec;
import io.rsocket.metadata.CompositeMetadataCodec;
import io.rsocket.metadata.WellKnownMimeType;
import io.rsocket.transport.ClientTransport;
import io.rsocket.transport.netty.client.TcpClientTransport;
import io.rsocket.transport.netty.client.WebsocketClientTransport;
import io.rsocket.util.ByteBufPayload;
import io.squall.functions.api.auth.ClusterSecret;
import io.squall.functions.api.auth.SetupProof;
import reactor.core.publisher.Mono;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;

/**
 * Opens RSocket connections to stages with Squall's SETUP: composite metadata carrying routes, data in
 * the binary wire format, and, in a closed cluster, a fresh {@link SetupProof} of the {@link ClusterSecret} as
 * authentication metadata (a new proof for every connection attempt). The returned {@link Mono} connects once per
 * subscription; the caller closes the {@link RSocket} with {@code dispose()}. Stateless and thread-safe.
 *
 * <p>A peer that stops answering keepalives for {@link #KEEPALIVE_TIMEOUT} is lost: the connection closes and its
 * streams fail {@code UNAVAILABLE} (which the gateway migrates). RSocket's default of 90 s left a hung worker's
 * streams (a stopped process, a frozen VM) waiting that long; the peer's Netty threads answer keepalives whatever
 * its engine is doing, so a busy stage is not mistaken for a hung one. The accepting stage applies the same limit to
 * the connecting one, from the SETUP frame.
 */
public final class StageConnections {

    /** How often a connecting stage sends a keepalive. */
    public static final Duration KEEPALIVE_INTERVAL = Duration.ofSeconds(2);

    /** How long without a frame from the peer before the connection counts as lost. */
    public static final Duration KEEPALIVE_TIMEOUT = Duration.ofSeconds(10);

    private StageConnections() {
    }

    /** RSocket over TCP to {@code host:port} in an open cluster (no credentials). */
    public static Mono<RSocket> tcp(String host, int port) {
        return tcp(host, port, ClusterSecret.open());
    }

    /** RSocket over TCP to {@code host:port}, proving {@code secret} in the SETUP frame. */
    public static Mono<RSocket> tcp(String host, int port, ClusterSecret secret) {
        return connect(TcpClientTransport.create(host, port), secret);
    }

    /** RSocket over WebSocket, e.g. {@code ws://127.0.0.1:8080/rsocket}, in an open cluster. */
    public static Mono<RSocket> websocket(URI uri) {
        return websocket(uri, ClusterSecret.open());
    }

    /** RSocket over WebSocket, proving {@code secret} in the SETUP frame. */
    public static Mono<RSocket> websocket(URI uri, ClusterSecret secret) {
        return connect(WebsocketClientTransport.create(uri), secret);
    }

    private static Mono<RSocket> connect(ClientTransport transport, ClusterSecret secret) {
        Objects.requireNonNull(secret, "secret");
        RSocketConnector connector = RSocketConnector.create()
                .metadataMimeType(RouteMetadata.METADATA_MIME_TYPE)
                .dataMimeType(RouteMetadata.DATA_MIME_TYPE)
                .payloadDecoder(PayloadDecoder.ZERO_COPY)
                .keepAlive(KEEPALIVE_INTERVAL, KEEPALIVE_TIMEOUT);
        if (!secret.isOpen()) {
            connector = connector.setupPayload(Mono.fromSupplier(() -> setup(secret)));
        }
        return connector.connect(transport);
    }

    /** A SETUP payload carrying a fresh proof of {@code secret}: composite metadata with one authentication entry. */
    static Payload setup(ClusterSecret secret) {
        ByteBufAllocator allocator = ByteBufAllocator.DEFAULT;
        CompositeByteBuf metadata = allocator.compositeBuffer();
        CompositeMetadataCodec.encodeAndAddMetadata(metadata, allocator, WellKnownMimeType.MESSAGE_RSOCKET_AUTHENTICATION,
                AuthMetadataCodec.encodeMetadata(allocator, SetupProof.AUTH_TYPE,
                        Unpooled.wrappedBuffer(SetupProof.create(secret))));
        return ByteBufPayload.create(Unpooled.EMPTY_BUFFER, metadata);
    }
}
