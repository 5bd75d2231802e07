package io.squall.gateway.routing;

/**
 * A worker's speed, for a router that weighs prefill against decode in predicted time rather than in blocks:
 * usually a measured profile's tables. Implementations are immutable and thread-safe.
 */
public interface WorkerLatency {

    /** Milliseconds to prefill {@code tokens} uncached prompt tokens alone on a worker. */
    double prefillMs(double tokens);

    /** Milliseconds between tokens when {@code sequences} decode at {@code contextTokens} tokens each. */
    double itlMs(double sequences, double contextTokens);

    /**
     * Milliseconds to bring {@code tokens} cached tokens back from the worker's host memory or disk into its working
     * pool, a copy that the sequences decoding beside the request do not wait for.
     */
    double onboardMs(double tokens);
}
