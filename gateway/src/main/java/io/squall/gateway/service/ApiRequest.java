package io.squall.gateway.service;

/**
 * A request as a transport received it.
 *
 * @param authorization the {@code Authorization} value ({@code Bearer <key>}), or null
 * @param body          the raw body, possibly empty; parsed strictly as UTF-8 JSON
 * @param delivery      whether the transport honours the body's {@code stream} flag or always streams
 */
public record ApiRequest(String authorization, byte[] body, Delivery delivery) {

    /** How the response is delivered. */
    public enum Delivery {
        /** As the request's {@code stream} field says (HTTP). */
        AS_REQUESTED,
        /** Always streamed (RSocket request-stream). */
        STREAM
    }
}
