package io.squall.functions.api.rsocket;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.util.ByteBufPayload;
import io.squall.functions.api.StageException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SynchronousSink;

import java.nio.ByteBuffer;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The requester side of Squall's routes: one routed request payload (or, for a channel, a routed first
 * payload followed by plain ones), each response payload decoded and released, transport errors mapped
 * to {@link StageException}s. Demand passes through unchanged (REQUEST_N frames one for one); nothing
 * is buffered here.
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
        return Flux.defer(() -> rsocket.requestStream(routed(route, body.get())))
                .handle(decoding(decoder))
                .onErrorMap(e -> !(e instanceof StageException), RSocketErrors::fromRSocket);
    }

    /** As {@link #requestStream}, for a request-response route. */
    static <T> Mono<T> requestResponse(RSocket rsocket, String route, Supplier<byte[]> body,
                                       Function<ByteBuffer, T> decoder) {
        return Mono.defer(() -> rsocket.requestResponse(routed(route, body.get())))
                .handle(decoding(decoder))
                .onErrorMap(e -> !(e instanceof StageException), RSocketErrors::fromRSocket);
    }

    /**
     * A request-channel on {@code route} whose first payload is {@code first} and the rest {@code rest},
     * encoded as the responder requests them; completes when the responder completes its (empty) side.
     */
    static <T> Mono<Void> requestChannel(RSocket rsocket, String route, Supplier<byte[]> first, Flux<T> rest,
                                         Function<T, byte[]> encoder) {
        return Flux.defer(() -> rsocket.requestChannel(Flux.concat(Mono.fromSupplier(() -> routed(route, first.get())),
                        rest.map(item -> ByteBufPayload.create(Unpooled.wrappedBuffer(encoder.apply(item)))))))
                .doOnNext(Payload::release)
                .then()
                .onErrorMap(e -> !(e instanceof StageException), RSocketErrors::fromRSocket);
    }

    private static Payload routed(String route, byte[] body) {
        return ByteBufPayload.create(Unpooled.wrappedBuffer(body), RouteMetadata.encode(ByteBufAllocator.DEFAULT, route));
    }

    private static <T> BiConsumer<Payload, SynchronousSink<T>> decoding(Function<ByteBuffer, T> decoder) {
        return (payload, sink) -> {
            try {
                sink.next(decoder.apply(payload.getData()));
            } catch (StageException e) {
                sink.error(e);
            } finally {
                payload.release();
            }
        };
    }
}
