package io.squall.cli.bench;

import io.squall.functions.api.CacheSources;

/**
 * What one request measured, in nanoseconds.
 *
 * @param ttftNanos     request sent → first generated text, or -1 when none came
 * @param itlNanos      gaps between successive text deltas
 * @param latencyNanos  request sent → end of the response
 * @param outputTokens  tokens generated
 * @param text          the generated text (resent as history in multi-turn workloads)
 * @param error         why the request failed, or null
 * @param served        what the server reported of the prompt and its routing (empty when it did not say)
 * @param errorType     the server's kind of error (OpenAI {@code error.type}, e.g. {@code service_unavailable_error}),
 *                      or null when the request succeeded or failed without a typed answer (a broken connection)
 */
public record Outcome(long ttftNanos, long[] itlNanos, long latencyNanos, int outputTokens, String text, String error,
                      Served served, String errorType) {

    /** A request that succeeded, or failed without a typed answer. */
    public Outcome(long ttftNanos, long[] itlNanos, long latencyNanos, int outputTokens, String text, String error,
                   Served served) {
        this(ttftNanos, itlNanos, latencyNanos, outputTokens, text, error, served, null);
    }

    /**
     * What the server reported with the usage.
     *
     * @param promptTokens  tokens of the prompt, or -1
     * @param cachedTokens  of which served from cache, or -1
     * @param worker        the worker that finished the request ({@code return_routing}), or null
     * @param overlapBlocks prompt blocks the router believed that worker held, or -1 when unknown
     * @param migrations    times the request moved to another worker
     * @param cachedByTier  where the cached tokens came from (G1, G2, G3, remote), or null when not said
     */
    public record Served(int promptTokens, int cachedTokens, String worker, int overlapBlocks, int migrations,
                         CacheSources cachedByTier) {
        static final Served UNKNOWN = new Served(-1, -1, null, -1, 0);

        /** Without the split of the cached tokens by tier. */
        public Served(int promptTokens, int cachedTokens, String worker, int overlapBlocks, int migrations) {
            this(promptTokens, cachedTokens, worker, overlapBlocks, migrations, null);
        }
    }

    static Outcome failed(long latencyNanos, String error) {
        return failed(latencyNanos, null, error);
    }

    /** A failed request; {@code type} is the server's kind of error, or null for none. */
    static Outcome failed(long latencyNanos, String type, String error) {
        return new Outcome(-1, new long[0], latencyNanos, 0, "", error, Served.UNKNOWN, type);
    }

    public boolean ok() {
        return error == null;
    }
}
