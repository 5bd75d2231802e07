package io.squall.gateway.openai;

import io.squall.functions.api.ErrorCode;

/**
 * The kinds of error the gateway answers with: the one place that fixes each kind's HTTP status, the
 * OpenAI {@code error.type} string and the {@link ErrorCode} carried in an RSocket error frame.
 */
public enum ApiError {
    /** Malformed or out-of-range input; retrying will not help. */
    INVALID_REQUEST(400, "invalid_request_error", ErrorCode.INVALID_REQUEST),
    /** No API key, or not a configured one. */
    UNAUTHORIZED(401, "authentication_error", ErrorCode.INVALID_REQUEST),
    /** Unknown model or route. */
    NOT_FOUND(404, "not_found_error", ErrorCode.NOT_FOUND),
    /** The route exists but not for this HTTP method. */
    METHOD_NOT_ALLOWED(405, "invalid_request_error", ErrorCode.INVALID_REQUEST),
    /** The body is larger than the configured limit. */
    REQUEST_TOO_LARGE(413, "invalid_request_error", ErrorCode.INVALID_REQUEST),
    /** The body is not JSON. */
    UNSUPPORTED_MEDIA_TYPE(415, "invalid_request_error", ErrorCode.INVALID_REQUEST),
    /** The API key's rate limit is exhausted; retry later. */
    RATE_LIMITED(429, "rate_limit_error", ErrorCode.OVERLOADED),
    /** A failure inside the gateway or a worker. */
    INTERNAL(500, "server_error", ErrorCode.INTERNAL),
    /** The gateway's in-flight limit and queue are full, or the worker is at capacity; retry later. */
    OVERLOADED(503, "overloaded_error", ErrorCode.OVERLOADED),
    /** No worker serves the model right now, or the gateway is shutting down. */
    UNAVAILABLE(503, "service_unavailable_error", ErrorCode.UNAVAILABLE),
    /** The request did not finish within the configured per-request timeout. */
    TIMEOUT(504, "timeout_error", ErrorCode.UNAVAILABLE);

    private final int httpStatus;
    private final String type;
    private final ErrorCode errorCode;

    ApiError(int httpStatus, String type, ErrorCode errorCode) {
        this.httpStatus = httpStatus;
        this.type = type;
        this.errorCode = errorCode;
    }

    public int httpStatus() {
        return httpStatus;
    }

    /** The OpenAI {@code error.type}. */
    public String type() {
        return type;
    }

    /** The code of the RSocket error frame that carries this error to RSocket clients. */
    public ErrorCode errorCode() {
        return errorCode;
    }

    /** The gateway error for a worker's {@link ErrorCode}. */
    public static ApiError fromStage(ErrorCode code) {
        return switch (code) {
            case INVALID_REQUEST -> INVALID_REQUEST;
            case OVERLOADED -> OVERLOADED;
            case NOT_FOUND -> NOT_FOUND;
            case UNAVAILABLE -> UNAVAILABLE;
            case INTERNAL -> INTERNAL;
        };
    }
}
