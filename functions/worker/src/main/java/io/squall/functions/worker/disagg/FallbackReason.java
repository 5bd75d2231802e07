package io.squall.functions.worker.disagg;

import java.util.Locale;

/** Why a remote prefill was abandoned and the decode worker computed the prompt itself. */
public enum FallbackReason {
    /** A pushed frame failed its CRC32C, or did not match the reservation (index, hash or size). */
    CORRUPT_FRAME,
    /** The push stream ended before every block arrived, or its connection broke. */
    TORN_TRANSFER,
    /** The prefill worker answered with an error or could not be reached. */
    PREFILL_ERROR,
    /** Nothing complete within {@link DisaggregationConfig#timeout()}. */
    TIMEOUT;

    /** The metric label: the name in lower case. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
