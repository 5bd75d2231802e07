package io.squall.functions.api.rsocket;

import io.rsocket.RSocket;
import io.squall.functions.api.KvBlockFrame;
import io.squall.functions.api.KvPushHeader;
import io.squall.functions.api.KvPushService;
import io.squall.functions.api.Routes;
import io.squall.functions.api.codec.WireFormat;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.Objects;

/**
 * {@link KvPushService} over an RSocket connection: each call is one request-channel on the
 * {@link Routes#KV_PUSH} route, the header first, then one payload per frame.
 *
 * <p>Demand: {@code frames} is requested as the decode worker's REQUEST_N frames allow, one for one;
 * nothing is buffered here. An error of {@code frames} travels to the decode worker as the channel's
 * error (it then falls back to computing the prompt itself). Thread-safe; the connection's lifecycle
 * belongs to the caller.
 */
public final class RSocketKvPushClient implements KvPushService {

    private final RSocket rsocket;

    public RSocketKvPushClient(RSocket rsocket) {
        this.rsocket = Objects.requireNonNull(rsocket, "rsocket");
    }

    @Override
    public Mono<Void> push(KvPushHeader header, Flux<KvBlockFrame> frames) {
        Objects.requireNonNull(header, "header");
        Objects.requireNonNull(frames, "frames");
        return RouteStreams.requestChannel(rsocket, Routes.KV_PUSH, () -> WireFormat.encode(header), frames,
                WireFormat::encode);
    }
}
