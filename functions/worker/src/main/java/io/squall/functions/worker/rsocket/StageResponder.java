package io.squall.functions.worker.rsocket;

import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.util.DefaultPayload;
import io.squall.functions.api.ErrorCode;
import io.squall.functions.api.GenerateRequest;
import io.squall.functions.api.GenerateService;
import io.squall.functions.api.KvFetchRequest;
import io.squall.functions.api.KvFetchService;
import io.squall.functions.api.Routes;
import io.squall.functions.api.StageException;
import io.squall.functions.api.codec.WireFormat;
import io.squall.functions.api.rsocket.RSocketErrors;
import io.squall.functions.api.rsocket.RouteMetadata;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.Objects;
import java.util.function.Supplier;

/**
 * The responder side of a stage's RSocket connections (the same for TCP and WebSocket). It routes by
 * the routing metadata: {@link Routes#GENERATE} decodes the request, runs it on the current
 * {@link GenerateService} and encodes each chunk; {@link Routes#KV_FETCH} does the same with the
 * current {@link KvFetchService} and its block frames; {@code kv.push} and {@code prefill} are not
 * served yet and, like unknown routes, answer {@code NOT_FOUND}. Before the stage is ready (no service
 * yet) its requests answer {@code UNAVAILABLE}.
 *
 * <p>Every failure of one stream is an error frame on that stream with the stage's {@link ErrorCode}
 * (a malformed payload is {@code INVALID_REQUEST}); nothing is thrown, so other streams on the
 * connection carry on. Demand: the requester's request-n reaches the service unchanged (no prefetch);
 * one payload is encoded per chunk or frame as it is emitted. Thread-safe.
 */
public final class StageResponder implements RSocket {

    private final Supplier<GenerateService> service;
    private final Supplier<KvFetchService> kvFetch;

    /**
     * @param service supplies the service to run generate requests on, or {@code null} while the stage is not ready
     * @param kvFetch supplies the service to answer KV fetches from, or {@code null} while the stage is not ready
     */
    public StageResponder(Supplier<GenerateService> service, Supplier<KvFetchService> kvFetch) {
        this.service = Objects.requireNonNull(service, "service");
        this.kvFetch = Objects.requireNonNull(kvFetch, "kvFetch");
    }

    @Override
    public Flux<Payload> requestStream(Payload payload) {
        try {
            String route = RouteMetadata.route(payload.metadata());
            if (Routes.KV_FETCH.equals(route)) {
                return fetch(WireFormat.decodeKvFetchRequest(payload.getData()));
            }
            if (!Routes.GENERATE.equals(route)) {
                return Flux.error(RSocketErrors.toRSocket(notServed(route)));
            }
            GenerateRequest request = WireFormat.decodeGenerateRequest(payload.getData());
            GenerateService current = service.get();
            if (current == null) {
                return Flux.error(RSocketErrors.toRSocket(notReady()));
            }
            return current.generate(request)
                    .map(chunk -> DefaultPayload.create(WireFormat.encode(chunk)))
                    .onErrorMap(RSocketErrors::toRSocket);
        } catch (RuntimeException e) {
            return Flux.error(RSocketErrors.toRSocket(e));
        } finally {
            payload.release();
        }
    }

    private Flux<Payload> fetch(KvFetchRequest request) {
        KvFetchService current = kvFetch.get();
        if (current == null) {
            return Flux.error(RSocketErrors.toRSocket(notReady()));
        }
        return current.fetch(request)
                .map(frame -> DefaultPayload.create(WireFormat.encode(frame)))
                .onErrorMap(RSocketErrors::toRSocket);
    }

    private static StageException notReady() {
        return new StageException(ErrorCode.UNAVAILABLE, "the worker is not ready yet");
    }

    @Override
    public Mono<Payload> requestResponse(Payload payload) {
        return Mono.error(RSocketErrors.toRSocket(rejectAndRelease(payload)));
    }

    @Override
    public Mono<Void> fireAndForget(Payload payload) {
        rejectAndRelease(payload);
        return Mono.empty();
    }

    @Override
    public Flux<Payload> requestChannel(Publisher<Payload> payloads) {
        return Flux.from(payloads)
                .take(1, true)
                .flatMap(first -> Flux.<Payload>error(RSocketErrors.toRSocket(rejectAndRelease(first))));
    }

    private static StageException rejectAndRelease(Payload payload) {
        try {
            return notServed(RouteMetadata.route(payload.metadata()));
        } finally {
            payload.release();
        }
    }

    private static StageException notServed(String route) {
        if (route == null) {
            return new StageException(ErrorCode.NOT_FOUND, "the request names no route");
        }
        return switch (route) {
            case Routes.PREFILL, Routes.KV_PUSH, Routes.KV_FETCH, Routes.GENERATE ->
                    new StageException(ErrorCode.NOT_FOUND, "route " + route + " is not served by this interaction on this worker yet");
            default -> new StageException(ErrorCode.NOT_FOUND, "unknown route " + route);
        };
    }
}
