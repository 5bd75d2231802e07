package io.squall.functions.api.rsocket;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.rsocket.DuplexConnection;
import io.rsocket.RSocketErrorException;
import io.rsocket.exceptions.ConnectionErrorException;
import io.rsocket.plugins.DuplexConnectionInterceptor;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.net.SocketAddress;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Checks the layout of every frame a connection receives before RSocket decodes it, and answers a malformed one
 * with {@code ERROR[CONNECTION_ERROR]} and closes the connection without handing the frame on.
 *
 * <p>Why: RSocket-Java 1.1 decodes a frame's fields without checking them against the frame's length; a frame
 * whose metadata length runs past its end, or of an unknown type, throws inside its frame handler, and on that
 * path the frame's buffer is released twice. The second release returns memory that the connection's inbound
 * buffer still holds to Netty's pool, which then hands it to other connections of the process: their outbound
 * frames were freed under them and their connections stopped sending (found by {@code squall bench fuzz}'s raw
 * frames: other connections' requests went unanswered for good).
 *
 * <p>The check, after the 6-byte header (stream id, then type and flags): the type is one RSocket defines; the
 * stream id has its reserved bit clear, is 0 for connection frames and not 0 for stream frames, and is odd when not
 * 0 (the client opens odd streams; an even one would be routed to this side's own requests, of which a stage has
 * none towards its clients, and that throws the same way); the fixed fields of the type fit; and the 24-bit
 * metadata length (frames with the M flag) fits the bytes left. For server-side connections only. Stateless;
 * thread-safe.
 */
public final class WellFormedFrames implements DuplexConnectionInterceptor {

    private static final int HEADER = 6;
    private static final int FLAG_METADATA = 0x100;
    private static final int FLAG_RESUME = 0x80;

    @Override
    public DuplexConnection apply(Type type, DuplexConnection connection) {
        return type == Type.SOURCE ? new Checked(connection) : connection;
    }

    /** Why {@code frame} is malformed, or {@code null} when its layout is sound. Does not move its indexes. */
    static String problem(ByteBuf frame) {
        int length = frame.readableBytes();
        if (length < HEADER) {
            return "a frame of " + length + " bytes is shorter than its header";
        }
        int start = frame.readerIndex();
        int streamId = frame.getInt(start);
        if (streamId < 0) {
            return "the stream id's reserved bit is set";
        }
        if (streamId != 0 && streamId % 2 == 0) {
            // the even ids are this side's own streams, and a stage opens none towards its clients
            return "a frame on even stream " + streamId;
        }
        int typeAndFlags = frame.getUnsignedShort(start + 4);
        int type = typeAndFlags >>> 10;
        boolean metadata = (typeAndFlags & FLAG_METADATA) != 0;
        int at = HEADER;
        switch (type) {
            case 0x01 -> { // SETUP: version, keepalive, lifetime, [resume token], two MIME types
                if (streamId != 0) {
                    return "SETUP on stream " + streamId;
                }
                at += 12;
                if ((typeAndFlags & FLAG_RESUME) != 0) {
                    if (at + 2 > length) {
                        return "SETUP ends in its resume token's length";
                    }
                    at += 2 + frame.getUnsignedShort(start + at);
                }
                for (int mime = 0; mime < 2; mime++) {
                    if (at + 1 > length) {
                        return "SETUP ends before its MIME types";
                    }
                    at += 1 + frame.getUnsignedByte(start + at);
                }
                return metadataFits(frame, start, at, length, metadata);
            }
            case 0x02, 0x03, 0x0E -> { // LEASE (ttl, count), KEEPALIVE (position), RESUME_OK (position)
                return streamId != 0 ? "a connection frame of type " + type + " on stream " + streamId
                        : at + 8 > length ? "a frame of type " + type + " ends in its fixed fields" : null;
            }
            case 0x0C, 0x0D -> { // METADATA_PUSH, RESUME: the rest of the frame
                return streamId != 0 ? "a connection frame of type " + type + " on stream " + streamId : null;
            }
            case 0x04, 0x05 -> { // REQUEST_RESPONSE, REQUEST_FNF
                return streamId == 0 ? "a request of type " + type + " on stream 0"
                        : metadataFits(frame, start, at, length, metadata);
            }
            case 0x0A -> { // PAYLOAD
                return streamId == 0 ? "PAYLOAD on stream 0" : metadataFits(frame, start, at, length, metadata);
            }
            case 0x06, 0x07 -> { // REQUEST_STREAM, REQUEST_CHANNEL: initial request-n
                return streamId == 0 ? "a request of type " + type + " on stream 0"
                        : at + 4 > length ? "a request ends in its request-n"
                        : metadataFits(frame, start, at + 4, length, metadata);
            }
            case 0x08 -> { // REQUEST_N
                return streamId == 0 ? "REQUEST_N on stream 0" : at + 4 > length ? "REQUEST_N ends in its request-n" : null;
            }
            case 0x09 -> { // CANCEL
                return streamId == 0 ? "CANCEL on stream 0" : null;
            }
            case 0x0B -> { // ERROR: code, then a message
                return at + 4 > length ? "ERROR ends in its code" : null;
            }
            case 0x3F -> { // EXT: extended type
                return at + 4 > length ? "EXT ends in its extended type" : null;
            }
            default -> {
                return "unknown frame type " + type;
            }
        }
    }

    /** {@code null} when the frame has no metadata or its 24-bit metadata length fits what follows {@code at}. */
    private static String metadataFits(ByteBuf frame, int start, int at, int length, boolean metadata) {
        if (!metadata) {
            return null;
        }
        if (at + 3 > length) {
            return "a frame ends in its metadata length";
        }
        int declared = frame.getUnsignedMedium(start + at);
        return at + 3 + declared > length ? "metadata of " + declared + " bytes runs past the frame's end" : null;
    }

    /** A connection whose inbound frames are checked; the first malformed one closes it. */
    private static final class Checked implements DuplexConnection {
        private final DuplexConnection connection;
        private final AtomicBoolean refused = new AtomicBoolean();

        Checked(DuplexConnection connection) {
            this.connection = connection;
        }

        @Override
        public Flux<ByteBuf> receive() {
            return connection.receive().handle((frame, sink) -> {
                String problem = refused.get() ? "" : problem(frame);
                if (problem == null) {
                    sink.next(frame);
                    return;
                }
                // not released here: the transport releases what it received once the frame is handled
                if (refused.compareAndSet(false, true)) {
                    connection.sendErrorAndClose(new ConnectionErrorException("malformed frame: " + problem));
                }
            });
        }

        @Override
        public void sendFrame(int streamId, ByteBuf frame) {
            connection.sendFrame(streamId, frame);
        }

        @Override
        public void sendErrorAndClose(RSocketErrorException error) {
            connection.sendErrorAndClose(error);
        }

        @Override
        public ByteBufAllocator alloc() {
            return connection.alloc();
        }

        @Override
        public SocketAddress remoteAddress() {
            return connection.remoteAddress();
        }

        @Override
        public double availability() {
            return connection.availability();
        }

        @Override
        public Mono<Void> onClose() {
            return connection.onClose();
        }

        @Override
        public void dispose() {
            connection.dispose();
        }

        @Override
        public boolean isDisposed() {
            return connection.isDisposed();
        }
    }
}
