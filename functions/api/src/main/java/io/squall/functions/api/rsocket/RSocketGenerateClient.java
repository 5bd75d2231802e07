package io.squall.functions.api.rsocket;

import io.rsocket.RSocket;
import io.squall.functions.api.GenerateRequest;
import io.squall.functions.api.GenerateService;
import io.squall.functions.api.Routes;
import io.squall.functions.api.StageException;
import io.squall.functions.api.TokenChunk;
import io.squall.functions.api.codec.WireFormat;
import reactor.core.publisher.Flux;

import java.util.Objects;

/**
 * {@link GenerateService} over an RSocket connection (TCP or WebSocket): each call is one
 * request-stream on the {@link Routes#GENERATE} route.
 *
 * <p>Demand: the subscriber's {@code request(n)} is carried to the worker as the stream's initial
 * request-n and REQUEST_N frames, one for one, with no prefetch in between; nothing is buffered here.
 * Cancelling the subscription sends CANCEL, which stops the sequence on the worker and frees its blocks.
 * Errors arrive as {@link StageException}s (see {@link RSocketErrors#fromRSocket}).
 *
 * <p>Thread-safe; the connection's lifecycle belongs to the caller.
 */
public final class RSocketGenerateClient implements GenerateService {

    private final RSocket rsocket;

    public RSocketGenerateClient(RSocket rsocket) {
        this.rsocket = Objects.requireNonNull(rsocket, "rsocket");
    }

    @Override
    public Flux<TokenChunk> generate(GenerateRequest request) {
        Objects.requireNonNull(request, "request");
        return RouteStreams.requestStream(rsocket, Routes.GENERATE, () -> WireFormat.encode(request),
                WireFormat::decodeTokenChunk);
    }
}
