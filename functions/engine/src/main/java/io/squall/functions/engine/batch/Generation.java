package io.squall.functions.engine.batch;

/**
 * The caller's handle on a submitted sequence. Thread-safe: call from any thread.
 */
public interface Generation {

    /**
     * Allows {@code n} more tokens to be delivered. A sequence with no outstanding demand is left out
     * of decode steps, so nothing is buffered beyond what was requested.
     */
    void request(long n);

    /** Stops the sequence at the next step and frees its KV blocks; the sink gets {@code CANCELLED}. */
    void cancel();
}
