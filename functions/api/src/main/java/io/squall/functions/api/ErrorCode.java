package io.squall.functions.api;

/**
 * Errors that cross a stage boundary, each with the RSocket application error code that carries it
 * in an error frame (custom codes 0x301–0xFFFFFFFE) and the HTTP status a gateway answers with.
 */
public enum ErrorCode {
    /** The request is malformed or out of range; retrying will not help. */
    INVALID_REQUEST(0x00000301, 400),
    /** The stage is at capacity; retry later or elsewhere. */
    OVERLOADED(0x00000302, 503),
    /** No worker serves the model, or the route is unknown. */
    NOT_FOUND(0x00000303, 404),
    /** The stage is starting or shutting down. */
    UNAVAILABLE(0x00000304, 503),
    /** A failure inside the stage. */
    INTERNAL(0x00000305, 500);

    private final int rsocketCode;
    private final int httpStatus;

    ErrorCode(int rsocketCode, int httpStatus) {
        this.rsocketCode = rsocketCode;
        this.httpStatus = httpStatus;
    }

    public int rsocketCode() {
        return rsocketCode;
    }

    public int httpStatus() {
        return httpStatus;
    }

    /** The code carried by {@code rsocketCode}, or {@link #INTERNAL} for codes Squall does not define. */
    public static ErrorCode fromRsocketCode(int rsocketCode) {
        for (ErrorCode code : values()) {
            if (code.rsocketCode == rsocketCode) {
                return code;
            }
        }
        return INTERNAL;
    }
}
