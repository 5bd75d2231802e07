package io.squall.functions.worker.disagg;

import java.util.Objects;

/** A remote prefill that failed for a known {@link FallbackReason}. */
final class RemotePrefillFailure extends RuntimeException {

    private final FallbackReason reason;

    RemotePrefillFailure(FallbackReason reason, String message) {
        super(message, null, false, false);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    FallbackReason reason() {
        return reason;
    }
}
