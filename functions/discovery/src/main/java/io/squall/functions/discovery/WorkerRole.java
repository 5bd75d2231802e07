package io.squall.functions.discovery;

import java.util.Locale;

/** What a worker does in the graph. */
public enum WorkerRole {
    /** Prefill and decode in one place. */
    AGGREGATED,
    /** Computes prompts' KV for decode workers. */
    PREFILL,
    /** Owns sequences and decodes them. */
    DECODE;

    /** Parses {@code aggregated}, {@code prefill} or {@code decode}, case-insensitively. */
    public static WorkerRole parse(String text) {
        for (WorkerRole role : values()) {
            if (role.name().equalsIgnoreCase(text)) {
                return role;
            }
        }
        throw new IllegalArgumentException("role must be aggregated, prefill or decode, got " + text);
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
