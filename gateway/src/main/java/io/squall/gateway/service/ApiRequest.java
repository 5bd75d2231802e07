package io.squall.gateway.service;

import reactor.core.scheduler.Scheduler;

import java.util.Objects;

/**
 * A request as a transport received it.
 *
 * @param authorization the {@code Authorization} value ({@code Bearer <key>}), or null
 * @param body          the raw body, possibly empty; parsed strictly as UTF-8 JSON
 * @param delivery      whether the transport honours the body's {@code stream} flag or always streams
 * @param emitOn        where the reply is produced: the worker's tokens are handed to it, and detokenization, stop
 *                      strings and JSON formatting run on it. A transport passes the I/O thread that writes the
 *                      response (e.g. the connection's Netty event loop), so a chunk is written as soon as it is
 *                      formatted, without another thread hop; never the worker's thread
 */
public record ApiRequest(String authorization, byte[] body, Delivery delivery, Scheduler emitOn) {

    public ApiRequest {
        Objects.requireNonNull(body, "body");
        Objects.requireNonNull(delivery, "delivery");
        Objects.requireNonNull(emitOn, "emitOn");
    }

    /** How the response is delivered. */
    public enum Delivery {
        /** As the request's {@code stream} field says (HTTP). */
        AS_REQUESTED,
        /** Always streamed (RSocket request-stream). */
        STREAM
    }
}
