package io.squall.cli.bench;

import io.netty.buffer.Unpooled;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.RSocketErrorException;
import io.rsocket.util.ByteBufPayload;
import io.squall.functions.api.ErrorCode;
import io.squall.functions.api.rsocket.StageConnections;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.TimeoutException;

/**
 * Sends fuzzed requests ({@link FuzzCases}) to the stages that serve each route, over well-formed RSocket
 * framing, and a share of them as mutated raw RSocket frames ({@link RawFrames}) to a worker's TCP port, one
 * at a time; then checks that the stages still serve well-formed requests. An answer counts as <em>typed</em>
 * when it is an error frame carrying one of Squall's {@link ErrorCode}s; anything else that fails (an RSocket
 * protocol error, a lost connection) is <em>untyped</em>, and no answer within the deadline a <em>timeout</em>.
 * Single-threaded: not thread-safe.
 */
final class WireFuzzer {

    /** An RSocket TCP address. */
    record Address(String host, int port) {
    }

    /**
     * Where each route is served: {@code decode} (generate, kv.push, kv.fetch), {@code prefill} and the gateway's
     * client API, which the {@code v1.*} requests name the model {@code model} of.
     */
    record Targets(Address decode, Address prefill, Address gateway, String model) {
    }

    /** Per-route counts. */
    static final class RouteCounts {
        long sent;
        long served;
        final Map<String, Long> typedErrors = new TreeMap<>();
        final Map<String, Long> untypedErrors = new TreeMap<>();
        long timeouts;
        long internalErrors;
    }

    private static final int MAX_FAILURES_KEPT = 40;

    private final Targets targets;
    private final Duration deadline;
    private final Map<FuzzCases.Route, RSocket> connections = new EnumMap<>(FuzzCases.Route.class);
    private final Map<FuzzCases.Route, RouteCounts> counts = new EnumMap<>(FuzzCases.Route.class);
    private final Map<String, Long> rawOutcomes = new TreeMap<>();
    private final List<String> failures = new ArrayList<>();
    private long healthPassed;
    private long healthFailed;

    /** @param deadline how long one request may take to be answered */
    WireFuzzer(Targets targets, Duration deadline) {
        this.targets = Objects.requireNonNull(targets, "targets");
        this.deadline = Objects.requireNonNull(deadline, "deadline");
        for (FuzzCases.Route route : FuzzCases.Route.values()) {
            counts.put(route, new RouteCounts());
        }
    }

    /**
     * Sends {@code frames} fuzzed requests from {@code seed}, one in {@code rawShare} as a raw frame (0: none), and
     * checks the stages' health every {@code healthEvery} requests and at the end.
     */
    FuzzReport run(long frames, long seed, int rawShare, int healthEvery) {
        FuzzCases cases = new FuzzCases(seed, targets.model());
        long start = System.nanoTime();
        for (long i = 1; i <= frames; i++) {
            if (rawShare > 0 && cases.random().nextInt(rawShare) == 0) {
                String outcome = RawFrames.exchange(targets.decode(), RawFrames.mutated(cases), deadline);
                rawOutcomes.merge(outcome, 1L, Long::sum);
                if (outcome.equals(RawFrames.TIMEOUT)) {
                    fail("raw frame " + i + ": no answer within " + deadline.toMillis() + " ms");
                }
            } else {
                send(cases.next(), i);
            }
            if (i % healthEvery == 0) {
                health();
            }
        }
        health();
        connections.values().forEach(RSocket::dispose);
        double seconds = (System.nanoTime() - start) / 1e9;
        return FuzzReport.of(frames, seed, seconds, counts, rawOutcomes, healthPassed, healthFailed, failures);
    }

    private void send(FuzzCases.Case fuzz, long index) {
        RouteCounts route = counts.get(fuzz.route());
        route.sent++;
        try {
            call(connection(fuzz.route()), fuzz).timeout(deadline, Mono.error(new TimeoutException())).block();
            route.served++;
        } catch (RuntimeException e) {
            Throwable error = e.getCause() instanceof TimeoutException ? e.getCause() : e;
            if (error instanceof TimeoutException) {
                route.timeouts++;
                fail(describe(fuzz, index) + ": no answer within " + deadline.toMillis() + " ms");
                connections.remove(fuzz.route()).dispose();
            } else if (typed(error) != null) {
                route.typedErrors.merge(typed(error).name(), 1L, Long::sum);
                if (typed(error) == ErrorCode.INTERNAL) {
                    // typed, but a stage's own fault: malformed input must be INVALID_REQUEST or NOT_FOUND
                    route.internalErrors++;
                    fail(describe(fuzz, index) + ": INTERNAL: " + error.getMessage());
                }
            } else {
                String kind = error instanceof RSocketErrorException rsocket
                        ? "rsocket 0x" + Integer.toHexString(rsocket.errorCode()) : error.getClass().getSimpleName();
                route.untypedErrors.merge(kind, 1L, Long::sum);
                fail(describe(fuzz, index) + ": " + kind + ": " + error.getMessage());
            }
        }
    }

    private static String describe(FuzzCases.Case fuzz, long index) {
        StringBuilder hex = new StringBuilder();
        for (byte[] data : fuzz.data()) {
            hex.append(' ').append(java.util.HexFormat.of().formatHex(data, 0, Math.min(data.length, 96)));
        }
        return fuzz.route() + " " + fuzz.mutation() + (fuzz.metadataMutated() ? " (metadata "
                + java.util.HexFormat.of().formatHex(fuzz.metadata(), 0, Math.min(fuzz.metadata().length, 48)) + ")" : "")
                + " #" + index + " data" + hex;
    }

    /** The request {@code fuzz} describes, as its route's interaction; completes when the stage has answered. */
    private static Mono<Void> call(RSocket rsocket, FuzzCases.Case fuzz) {
        List<byte[]> data = fuzz.data();
        return switch (fuzz.route()) {
            case PREFILL -> rsocket.requestResponse(payload(data.getFirst(), fuzz.metadata())).doOnNext(Payload::release).then();
            case KV_PUSH -> rsocket.requestChannel(Flux.range(0, data.size())
                            .map(i -> payload(data.get(i), i == 0 ? fuzz.metadata() : null)))
                    .doOnNext(Payload::release).then();
            // the first answers show how the stage took the request; the rest of a stream is not needed
            default -> rsocket.requestStream(payload(data.getFirst(), fuzz.metadata())).take(2).doOnNext(Payload::release).then();
        };
    }

    private static Payload payload(byte[] data, byte[] metadata) {
        return metadata == null ? ByteBufPayload.create(Unpooled.wrappedBuffer(data))
                : ByteBufPayload.create(Unpooled.wrappedBuffer(data), Unpooled.wrappedBuffer(metadata));
    }

    /** The Squall error code {@code error} carries, or {@code null}. */
    private static ErrorCode typed(Throwable error) {
        if (error instanceof RSocketErrorException rsocket) {
            for (ErrorCode code : ErrorCode.values()) {
                if (code.rsocketCode() == rsocket.errorCode()) {
                    return code;
                }
            }
        }
        return null;
    }

    private RSocket connection(FuzzCases.Route route) {
        RSocket open = connections.get(route);
        if (open == null || open.isDisposed()) {
            open = StageConnections.tcp(address(route).host(), address(route).port()).block(deadline);
            connections.put(route, open);
        }
        return open;
    }

    private Address address(FuzzCases.Route route) {
        return route.clientApi() ? targets.gateway() : route == FuzzCases.Route.PREFILL ? targets.prefill() : targets.decode();
    }

    /** Well-formed requests on fresh connections to each stage must be served. */
    private void health() {
        FuzzCases valid = new FuzzCases(healthPassed + healthFailed, targets.model());
        for (FuzzCases.Route route : List.of(FuzzCases.Route.GENERATE, FuzzCases.Route.KV_FETCH, FuzzCases.Route.V1_CHAT)) {
            RSocket fresh = null;
            try {
                fresh = StageConnections.tcp(address(route).host(), address(route).port()).block(deadline);
                call(fresh, new FuzzCases.Case(route, FuzzCases.Mutation.VALID, false, valid.baseline(route),
                        FuzzCases.routeMetadata(route.wireName))).block(deadline);
                healthPassed++;
            } catch (RuntimeException e) {
                healthFailed++;
                fail("health check of " + route + " failed: " + e);
            } finally {
                if (fresh != null) {
                    fresh.dispose();
                }
            }
        }
    }

    private void fail(String failure) {
        if (failures.size() < MAX_FAILURES_KEPT) {
            failures.add(failure);
        }
    }
}
