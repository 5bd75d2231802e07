package io.squall.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketConnector;
import io.rsocket.metadata.AuthMetadataCodec;
import io.rsocket.metadata.CompositeMetadataCodec;
import io.rsocket.metadata.TaggingMetadataCodec;
import io.rsocket.metadata.WellKnownMimeType;
import io.rsocket.transport.ClientTransport;
import io.rsocket.util.DefaultPayload;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/** An RSocket client of the gateway's client API ({@code v1.chat}, {@code v1.completions}) for tests, as an SDK would call it. */
final class ClientApi {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private ClientApi() {
    }

    /** A connection with composite metadata and JSON data, as the client API expects. */
    static RSocket connect(ClientTransport transport) {
        return RSocketConnector.create()
                .metadataMimeType(WellKnownMimeType.MESSAGE_RSOCKET_COMPOSITE_METADATA.getString())
                .dataMimeType("application/json")
                .connect(transport).block(TIMEOUT);
    }

    /** A request to {@code route} carrying {@code json}, with a bearer {@code key} unless it is null. */
    static Payload request(String route, String key, String json) {
        ByteBufAllocator alloc = ByteBufAllocator.DEFAULT;
        CompositeByteBuf metadata = alloc.compositeBuffer();
        CompositeMetadataCodec.encodeAndAddMetadata(metadata, alloc, WellKnownMimeType.MESSAGE_RSOCKET_ROUTING,
                TaggingMetadataCodec.createRoutingMetadata(alloc, List.of(route)).getContent());
        if (key != null) {
            CompositeMetadataCodec.encodeAndAddMetadata(metadata, alloc, WellKnownMimeType.MESSAGE_RSOCKET_AUTHENTICATION,
                    AuthMetadataCodec.encodeBearerMetadata(alloc, key.toCharArray()));
        }
        return DefaultPayload.create(Unpooled.wrappedBuffer(json.getBytes(StandardCharsets.UTF_8)), metadata);
    }

    /** Every JSON chunk of one request-stream; an error frame is thrown as the RSocket exception it maps to. */
    static List<JsonNode> stream(RSocket socket, String route, String key, String json) {
        return socket.requestStream(request(route, key, json))
                .map(payload -> {
                    try {
                        return JSON.readTree(payload.getDataUtf8());
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    } finally {
                        payload.release();
                    }
                })
                .collectList().block(TIMEOUT);
    }
}
