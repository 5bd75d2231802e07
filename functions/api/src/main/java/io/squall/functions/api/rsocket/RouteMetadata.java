package io.squall.functions.api.rsocket;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.rsocket.metadata.CompositeMetadata;
import io.rsocket.metadata.CompositeMetadataCodec;
import io.rsocket.metadata.RoutingMetadata;
import io.rsocket.metadata.TaggingMetadataCodec;
import io.rsocket.metadata.WellKnownMimeType;

import java.util.List;

/**
 * Routing metadata ({@code message/x.rsocket.routing.v0}) inside composite metadata
 * ({@code message/x.rsocket.composite-metadata.v0}), the metadata MIME type every Squall connection
 * declares in its SETUP frame. Stateless and thread-safe.
 */
public final class RouteMetadata {

    /** The connection's metadata MIME type. */
    public static final String METADATA_MIME_TYPE = WellKnownMimeType.MESSAGE_RSOCKET_COMPOSITE_METADATA.getString();
    /** The connection's data MIME type: the binary encoding of {@code docs/wire-protocol.md}. */
    public static final String DATA_MIME_TYPE = "application/x.squall.wire.v1";

    private RouteMetadata() {
    }

    /** Composite metadata holding one routing entry for {@code route}; the caller owns the buffer. */
    public static ByteBuf encode(ByteBufAllocator allocator, String route) {
        CompositeByteBuf metadata = allocator.compositeBuffer();
        RoutingMetadata routing = TaggingMetadataCodec.createRoutingMetadata(allocator, List.of(route));
        CompositeMetadataCodec.encodeAndAddMetadata(metadata, allocator, WellKnownMimeType.MESSAGE_RSOCKET_ROUTING,
                routing.getContent());
        return metadata;
    }

    /**
     * The first route in {@code metadata}, or {@code null} when there is none or the metadata is not
     * well-formed composite metadata. Does not change the buffer's reader index or reference count.
     */
    public static String route(ByteBuf metadata) {
        if (metadata == null || !metadata.isReadable()) {
            return null;
        }
        try {
            for (CompositeMetadata.Entry entry : new CompositeMetadata(metadata.slice(), false)) {
                if (WellKnownMimeType.MESSAGE_RSOCKET_ROUTING.getString().equals(entry.getMimeType())) {
                    for (String tag : new RoutingMetadata(entry.getContent())) {
                        return tag;
                    }
                }
            }
        } catch (RuntimeException malformed) {
            return null; // reported by the caller as an unknown route
        }
        return null;
    }
}
