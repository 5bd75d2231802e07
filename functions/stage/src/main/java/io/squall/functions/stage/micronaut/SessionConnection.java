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
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An RSocket {@link DuplexConnection} over one Micronaut WebSocket session. Outgoing frames are written as binary
 * messages in the order RSocket sends them, by one writer at a time on a thread that is never the channel's event
 * loop: Netty writes at once what its event loop writes and queues what other threads write, so frames sent from
 * both (a stream's first chunk from a scheduler thread, the next from the event loop answering request-n) could
 * overtake each other. RSocket's request-n bounds what is in flight. Incoming frames are queued for RSocket's
 * single subscriber, which requests without bound and so keeps the queue near empty. Thread-safe.
 */
final class SessionConnection implements DuplexConnection {

    /** Where frames are handed to the session: virtual threads, never an event loop. */
    private static final Executor WRITER = Executors.newVirtualThreadPerTaskExecutor();

    private final WebSocketSession session;
    private final Queue<ByteBuf> outbound = new ConcurrentLinkedQueue<>();
    /** Sends the writer has not yet seen; the sender that raises it from 0 starts the writer. */
    private final AtomicInteger pending = new AtomicInteger();
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
        outbound.add(frame);
        if (pending.getAndIncrement() == 0) {
            WRITER.execute(this::write);
        }
    }

    /** Hands queued frames to the session in order until no send is pending; one writer at a time. */
    private void write() {
        int seen = 1;
        do {
            for (ByteBuf frame; (frame = outbound.poll()) != null; ) {
                if (!session.isOpen()) {
                    frame.release();
                    continue;
                }
                try {
                    session.sendAsync(frame); // Micronaut wraps it in a binary frame; Netty releases it once written
                } catch (RuntimeException e) {
                    dispose(); // a session that cannot take a frame is broken: its streams fail, nothing waits on them
                }
            }
            seen = pending.addAndGet(-seen); // sends that came while this ran: go round again for their frames
        } while (seen != 0);
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
