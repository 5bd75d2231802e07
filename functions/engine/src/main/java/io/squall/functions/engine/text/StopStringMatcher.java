package io.squall.functions.engine.text;

import java.util.List;
import java.util.Objects;

/**
 * Streaming matcher for stop strings (OpenAI {@code stop}). Feed it the detokenized text deltas of one sequence;
 * each call returns the text that is safe to show now. Text that could be the beginning of a stop string is held
 * back until a later delta proves it is not (or the stream ends, see {@link #finish()}). When a stop string
 * occurs, the text before it is emitted, the stop string and anything after it are dropped, and the matcher is
 * done. A stop string may span any number of deltas.
 *
 * <p>If several stop strings occur, the one starting earliest wins; at equal starts, the longest. A match is
 * reported as soon as it is complete, even if a longer stop string starting earlier might still complete later.
 *
 * <p>Holds back at most {@code longest stop string - 1} characters. Not thread-safe: one per sequence.
 */
public final class StopStringMatcher {
    private final List<String> stops;
    private final int longest;
    private final StringBuilder pending = new StringBuilder();
    private boolean stopped;

    /**
     * @param stops the stop strings, not null, none null or empty; an empty list never stops
     */
    public StopStringMatcher(List<String> stops) {
        Objects.requireNonNull(stops, "stops");
        int max = 0;
        for (String stop : stops) {
            if (stop == null || stop.isEmpty()) {
                throw new IllegalArgumentException("stop strings must be non-empty, got " + stops);
            }
            max = Math.max(max, stop.length());
        }
        this.stops = List.copyOf(stops);
        this.longest = max;
    }

    /** What one delta produced: text to emit now, and whether a stop string ended the sequence. */
    public sealed interface Step {
        /** Text safe to emit now, possibly empty, never null. */
        String text();

        /** No stop string yet; more text may follow. */
        record Continue(String text) implements Step {
        }

        /**
         * A stop string matched: emit {@code text} (what preceded it) and end the sequence.
         *
         * @param stop the stop string that matched, as configured
         */
        record Stopped(String text, String stop) implements Step {
        }
    }

    /**
     * Adds the next delta of generated text.
     *
     * @param delta decoded text, not null, possibly empty
     * @throws IllegalStateException after a stop string matched
     */
    public Step accept(String delta) {
        Objects.requireNonNull(delta, "delta");
        if (stopped) {
            throw new IllegalStateException("a stop string already matched; the sequence is over");
        }
        pending.append(delta);
        int matchStart = -1;
        String match = null;
        for (String stop : stops) {
            int at = pending.indexOf(stop);
            if (at >= 0 && (matchStart < 0 || at < matchStart || at == matchStart && stop.length() > match.length())) {
                matchStart = at;
                match = stop;
            }
        }
        if (match != null) {
            stopped = true;
            String text = pending.substring(0, matchStart);
            pending.setLength(0);
            return new Step.Stopped(text, match);
        }
        int emit = pending.length() - heldBack();
        String text = pending.substring(0, emit);
        pending.delete(0, emit);
        return new Step.Continue(text);
    }

    /**
     * Ends the stream without a stop string: returns the held-back text, which is now known not to start one.
     * Returns the empty string after a stop string matched.
     */
    public String finish() {
        String rest = pending.toString();
        pending.setLength(0);
        return rest;
    }

    /** Length of the longest suffix of {@code pending} that is a proper prefix of some stop string. */
    private int heldBack() {
        int length = pending.length();
        for (int k = Math.min(length, longest - 1); k > 0; k--) {
            for (String stop : stops) {
                if (stop.length() > k && startsWith(stop, length - k, k)) {
                    return k;
                }
            }
        }
        return 0;
    }

    private boolean startsWith(String stop, int from, int count) {
        for (int i = 0; i < count; i++) {
            if (pending.charAt(from + i) != stop.charAt(i)) {
                return false;
            }
        }
        return true;
    }
}
