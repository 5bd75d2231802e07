package io.squall.functions.api.rsocket;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.util.ByteBufPayload;
import io.squall.functions.api.KvBlockFrame;
import io.squall.functions.api.KvFetchRequest;
import io.squall.functions.api.KvFetchService;
import io.squall.functions.api.Routes;
import io.squall.functions.api.StageException;
import io.squall.functions.api.codec.WireFormat;
import reactor.core.publisher.Flux;
import reactor.core.publisher.SynchronousSink;

import java.util.Objects;

/**
 * {@link KvFetchService} over an RSocket connection: each call is one request-stream on the
 * {@link Routes#KV_FETCH} route.
 *
 * <p>Demand: the subscriber's {@code request(n)} travels to the responder as the initial request-n and
 * REQUEST_N frames, one for one; nothing is buffered or prefetched here. Each frame is decoded and its
 * CRC32C checked as it arrives: a frame failing that ends the stream with an
 * {@link io.squall.functions.api.ErrorCode#INVALID_REQUEST} {@link StageException} (and cancels the
 * rest), so a subscriber never sees bytes that differ from what the responder read. Other errors arrive
 * as {@link StageException}s (see {@link RSocketErrors#fromRSocket}).
 *
 * <p>Thread-safe; the connection's lifecycle belongs to the caller.
 */
public final class RSocketKvFetchClient implements KvFetchService {

    private final RSocket rsocket;

    public RSocketKvFetchClient(RSocket rsocket) {
        this.rsocket = Objects.requireNonNull(rsocket, "rsocket");
    }

    @Override
    public Flux<KvBlockFrame> fetch(KvFetchRequest request) {
        Objects.requireNonNull(request, "request");
        return Flux.defer(() -> rsocket.requestStream(ByteBufPayload.create(
                        Unpooled.wrappedBuffer(WireFormat.encode(request)),
                        RouteMetadata.encode(ByteBufAllocator.DEFAULT, Routes.KV_FETCH))))
                .handle((Payload payload, SynchronousSink<KvBlockFrame> sink) -> {
                    try {
                        sink.next(WireFormat.decodeKvBlockFrame(payload.getData()));
                    } catch (StageException e) {
                        sink.error(e);
                    } finally {
                        payload.release();
                    }
                })
                .onErrorMap(e -> !(e instanceof StageException), RSocketErrors::fromRSocket);
    }
}
