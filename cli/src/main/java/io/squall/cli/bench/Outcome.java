package io.squall.cli.bench;

/**
 * What one request measured, in nanoseconds.
 *
 * @param ttftNanos     request sent → first generated text, or -1 when none came
 * @param itlNanos      gaps between successive text deltas
 * @param latencyNanos  request sent → end of the response
 * @param outputTokens  tokens generated
 * @param text          the generated text (resent as history in multi-turn workloads)
 * @param error         why the request failed, or null
 */
public record Outcome(long ttftNanos, long[] itlNanos, long latencyNanos, int outputTokens, String text, String error) {

    static Outcome failed(long latencyNanos, String error) {
        return new Outcome(-1, new long[0], latencyNanos, 0, "", error);
    }

    boolean ok() {
        return error == null;
    }
}
