package io.squall.functions.api;

import java.util.Objects;

/** A failure with an {@link ErrorCode}, signalled (never thrown across {@code onNext}) on reactive paths. */
public final class StageException extends RuntimeException {

    private final ErrorCode code;

    public StageException(ErrorCode code, String message) {
        super(message);
        this.code = Objects.requireNonNull(code, "code");
    }

    public ErrorCode code() {
        return code;
    }
}
