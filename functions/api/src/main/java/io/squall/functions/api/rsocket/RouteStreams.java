package io.squall.functions.api.rsocket;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.util.ByteBufPayload;
import io.squall.functions.api.StageException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.SynchronousSink;

import java.nio.ByteBuffer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The requester side of Squall's request-stream routes: one routed request payload, each response
 * payload decoded and released, transport errors mapped to {@link StageException}s. Demand passes
 * through unchanged (REQUEST_N frames one for one); nothing is buffered here.
 */
final class RouteStreams {

    private RouteStreams() {
    }

    /**
     * Encodes {@code body} and sends it on {@code route} when subscribed, so encoding errors are
     * signalled, not thrown; a payload that {@code decoder} rejects (with a {@link StageException})
     * ends the stream with that error.
     */
    static <T> Flux<T> requestStream(RSocket rsocket, String route, Supplier<byte[]> body,
                                     Function<ByteBuffer, T> decoder) {
        return Flux.defer(() -> rsocket.requestStream(ByteBufPayload.create(Unpooled.wrappedBuffer(body.get()),
                        RouteMetadata.encode(ByteBufAllocator.DEFAULT, route))))
                .handle((Payload payload, SynchronousSink<T> sink) -> {
                    try {
                        sink.next(decoder.apply(payload.getData()));
                    } catch (StageException e) {
                        sink.error(e);
                    } finally {
                        payload.release();
                    }
                })
                .onErrorMap(e -> !(e instanceof StageException), RSocketErrors::fromRSocket);
    }
}
