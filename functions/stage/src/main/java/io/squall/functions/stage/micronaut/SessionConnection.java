package io.squall.functions.stage.micronaut;

import io.micronaut.websocket.WebSocketSession;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.rsocket.DuplexConnection;
import io.rsocket.RSocketErrorException;
import io.rsocket.frame.ErrorFrameCodec;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An RSocket {@link DuplexConnection} over one Micronaut WebSocket session. Outgoing frames are written as binary
 * messages at once (Netty's channel keeps the order of writes; RSocket's request-n bounds what is in flight);
 * incoming ones are queued for RSocket's single subscriber, which requests without bound and so keeps the queue
 * near empty. Thread-safe.
 */
final class SessionConnection implements DuplexConnection {

    private final WebSocketSession session;
    private final Sinks.Many<ByteBuf> inbound = Sinks.many().unicast().onBackpressureBuffer();
    private final Sinks.Empty<Void> onClose = Sinks.empty();
    private final AtomicBoolean disposed = new AtomicBoolean();

    SessionConnection(WebSocketSession session) {
        this.session = session;
    }

    /** A frame arrived (on the session's event loop). */
    void received(ByteBuf frame) {
        if (inbound.tryEmitNext(frame).isFailure()) {
            frame.release();
        }
    }

    /** The session closed. */
    void closed() {
        disposed.set(true);
        inbound.tryEmitComplete();
        onClose.tryEmitEmpty();
    }

    @Override
    public void sendFrame(int streamId, ByteBuf frame) {
        if (!session.isOpen()) {
            frame.release();
            return;
        }
        // Micronaut wraps the buffer in a binary frame; Netty releases it once written (or failed)
        session.sendAsync(frame);
    }

    @Override
    public void sendErrorAndClose(RSocketErrorException error) {
        if (session.isOpen()) {
            session.sendAsync(ErrorFrameCodec.encode(alloc(), 0, error)).whenComplete((sent, failure) -> session.close());
        }
        closed();
    }

    @Override
    public Flux<ByteBuf> receive() {
        return inbound.asFlux();
    }

    @Override
    public ByteBufAllocator alloc() {
        return ByteBufAllocator.DEFAULT;
    }

    @Override
    public SocketAddress remoteAddress() {
        return InetSocketAddress.createUnresolved("websocket-" + session.getId(), 0);
    }

    @Override
    public Mono<Void> onClose() {
        return onClose.asMono();
    }

    @Override
    public void dispose() {
        if (session.isOpen()) {
            session.close();
        }
        closed();
    }

    @Override
    public boolean isDisposed() {
        return disposed.get() || !session.isOpen();
    }
}
