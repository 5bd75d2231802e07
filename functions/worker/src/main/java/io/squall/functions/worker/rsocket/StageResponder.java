package io.squall.functions.worker.rsocket;

import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.util.DefaultPayload;
import io.squall.functions.api.ErrorCode;
import io.squall.functions.api.GenerateService;
import io.squall.functions.api.KvFetchService;
import io.squall.functions.api.KvPushService;
import io.squall.functions.api.PrefillService;
import io.squall.functions.api.KvBlockFrame;
import io.squall.functions.api.KvPushHeader;
import io.squall.functions.api.Routes;
import io.squall.functions.api.StageException;
import io.squall.functions.api.codec.WireFormat;
import io.squall.functions.api.rsocket.RSocketErrors;
import io.squall.functions.api.rsocket.RouteMetadata;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SynchronousSink;

import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The responder side of a stage's RSocket connections (the same for TCP and WebSocket). It routes by
 * the routing metadata: {@link Routes#GENERATE} and {@link Routes#KV_FETCH} (request-stream),
 * {@link Routes#PREFILL} (request-response) and {@link Routes#KV_PUSH} (request-channel: a
 * {@link KvPushHeader}, then {@link KvBlockFrame}s) decode the request, run it on the stage's current
 * {@link StageServices} and encode what comes back. A route the stage's role does not serve, or an
 * unknown one, answers {@code NOT_FOUND}; before the stage is ready (no services yet) requests answer
 * {@code UNAVAILABLE}.
 *
 * <p>Every failure of one stream is an error frame on that stream with the stage's {@link ErrorCode}
 * (a malformed payload is {@code INVALID_REQUEST}); nothing is thrown, so other streams on the
 * connection carry on. Demand: the requester's request-n reaches the service unchanged (no prefetch);
 * one payload is encoded per chunk or frame as it is emitted, and a channel's frames are decoded as the
 * service requests them. Thread-safe.
 */
public final class StageResponder implements RSocket {

    private final Supplier<StageServices> services;

    /** @param services supplies what the stage serves, or {@code null} while it is not ready */
    public StageResponder(Supplier<StageServices> services) {
        this.services = Objects.requireNonNull(services, "services");
    }

    @Override
    public Flux<Payload> requestStream(Payload payload) {
        try {
            String route = RouteMetadata.route(payload.metadata());
            if (Routes.KV_FETCH.equals(route)) {
                KvFetchService service = service(route, StageServices::kvFetch);
                return service.fetch(WireFormat.decodeKvFetchRequest(payload.getData()))
                        .map(frame -> DefaultPayload.create(WireFormat.encode(frame)))
                        .onErrorMap(RSocketErrors::toRSocket);
            }
            if (Routes.GENERATE.equals(route)) {
                GenerateService service = service(route, StageServices::generate);
                return service.generate(WireFormat.decodeGenerateRequest(payload.getData()))
                        .map(chunk -> DefaultPayload.create(WireFormat.encode(chunk)))
                        .onErrorMap(RSocketErrors::toRSocket);
            }
            return Flux.error(RSocketErrors.toRSocket(notServed(route)));
        } catch (RuntimeException e) {
            return Flux.error(RSocketErrors.toRSocket(e));
        } finally {
            payload.release();
        }
    }

    @Override
    public Mono<Payload> requestResponse(Payload payload) {
        try {
            String route = RouteMetadata.route(payload.metadata());
            if (!Routes.PREFILL.equals(route)) {
                return Mono.error(RSocketErrors.toRSocket(notServed(route)));
            }
            PrefillService service = service(route, StageServices::prefill);
            return service.prefill(WireFormat.decodePrefillRequest(payload.getData()))
                    .map(result -> DefaultPayload.create(WireFormat.encode(result)))
                    .onErrorMap(RSocketErrors::toRSocket);
        } catch (RuntimeException e) {
            return Mono.error(RSocketErrors.toRSocket(e));
        } finally {
            payload.release();
        }
    }

    /** No route is fire-and-forget: the payload is dropped. */
    @Override
    public Mono<Void> fireAndForget(Payload payload) {
        payload.release();
        return Mono.empty();
    }

    /** {@code kv.push}: the first payload names the route and carries the header; the rest are block frames. */
    @Override
    public Flux<Payload> requestChannel(Publisher<Payload> payloads) {
        return Flux.from(payloads).switchOnFirst((first, all) -> {
            if (!first.hasValue()) {
                return Flux.empty(); // the requester ended the channel without a payload
            }
            KvPushHeader header;
            KvPushService service;
            Payload opening = first.get();
            try {
                String route = RouteMetadata.route(opening.metadata());
                if (!Routes.KV_PUSH.equals(route)) {
                    return Flux.error(RSocketErrors.toRSocket(notServed(route)));
                }
                service = service(route, StageServices::kvPush);
                header = WireFormat.decodeKvPushHeader(opening.getData());
            } catch (RuntimeException e) {
                return Flux.error(RSocketErrors.toRSocket(e));
            } finally {
                opening.release();
            }
            Flux<KvBlockFrame> frames = all.skip(1).handle((Payload payload, SynchronousSink<KvBlockFrame> sink) -> {
                try {
                    sink.next(WireFormat.decodeKvBlockFrame(payload.getData()));
                } catch (StageException malformed) {
                    sink.error(malformed);
                } finally {
                    payload.release();
                }
            });
            return service.push(header, frames)
                    .<Payload>then(Mono.empty())
                    .flux()
                    .onErrorMap(RSocketErrors::toRSocket);
        }, false);
    }

    /**
     * The service of {@code route}; checked before the payload is decoded, so a request for another role
     * is {@code NOT_FOUND} whatever it carries.
     *
     * @throws StageException {@code UNAVAILABLE} before the stage is ready, {@code NOT_FOUND} when its role does not serve the route
     */
    private <S> S service(String route, Function<StageServices, S> service) {
        StageServices current = services.get();
        if (current == null) {
            throw new StageException(ErrorCode.UNAVAILABLE, "the worker is not ready yet");
        }
        S served = service.apply(current);
        if (served == null) {
            throw new StageException(ErrorCode.NOT_FOUND, "route " + route + " is not served by this worker's role");
        }
        return served;
    }

    private static StageException notServed(String route) {
        if (route == null) {
            return new StageException(ErrorCode.NOT_FOUND, "the request names no route");
        }
        return switch (route) {
            case Routes.PREFILL, Routes.KV_PUSH, Routes.KV_FETCH, Routes.GENERATE ->
                    new StageException(ErrorCode.NOT_FOUND, "route " + route + " is not served by this interaction");
            default -> new StageException(ErrorCode.NOT_FOUND, "unknown route " + route);
        };
    }
}
