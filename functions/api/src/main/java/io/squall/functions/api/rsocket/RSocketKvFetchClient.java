package io.squall.functions.api.rsocket;

import io.rsocket.RSocket;
import io.squall.functions.api.KvBlockFrame;
import io.squall.functions.api.KvFetchRequest;
import io.squall.functions.api.KvFetchService;
import io.squall.functions.api.Routes;
import io.squall.functions.api.StageException;
import io.squall.functions.api.codec.WireFormat;
import reactor.core.publisher.Flux;

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
        return RouteStreams.requestStream(rsocket, Routes.KV_FETCH, () -> WireFormat.encode(request),
                WireFormat::decodeKvBlockFrame);
    }
}
