package io.squall.functions.api.rsocket;

import io.rsocket.RSocket;
import io.squall.functions.api.PrefillRequest;
import io.squall.functions.api.PrefillResult;
import io.squall.functions.api.PrefillService;
import io.squall.functions.api.Routes;
import io.squall.functions.api.codec.WireFormat;
import reactor.core.publisher.Mono;

import java.util.Objects;

/**
 * {@link PrefillService} over an RSocket connection: each call is one request-response on the
 * {@link Routes#PREFILL} route; cancelling it sends CANCEL, which stops the prefill on the prefill
 * worker. Errors arrive as {@link io.squall.functions.api.StageException}s. Thread-safe; the
 * connection's lifecycle belongs to the caller.
 */
public final class RSocketPrefillClient implements PrefillService {

    private final RSocket rsocket;

    public RSocketPrefillClient(RSocket rsocket) {
        this.rsocket = Objects.requireNonNull(rsocket, "rsocket");
    }

    @Override
    public Mono<PrefillResult> prefill(PrefillRequest request) {
        Objects.requireNonNull(request, "request");
        return RouteStreams.requestResponse(rsocket, Routes.PREFILL, () -> WireFormat.encode(request),
                WireFormat::decodePrefillResult);
    }
}
