package io.squall.functions.engine.mock;

import io.squall.functions.engine.model.ForwardPass;

import java.util.List;

/**
 * What one forward pass computes, in the terms a step's duration depends on.
 *
 * @param rows tokens run in the step (decode rows plus prompt-chunk rows)
 * @param decodeRows sequences that decode one token in the step
 * @param decodeContext positions their attention reads, summed over the decode rows, in tokens
 * @param prefillPairs query-key pairs of the prompt chunks' attention: a chunk of {@code n} tokens starting
 *     at position {@code s} has {@code n·s + n(n+1)/2}
 */
public record StepShape(int rows, int decodeRows, long decodeContext, long prefillPairs) {

    public StepShape {
        if (rows < 0 || decodeRows < 0 || decodeRows > rows || decodeContext < 0 || prefillPairs < 0) {
            throw new IllegalArgumentException("step shape out of range: rows=" + rows + " decodeRows=" + decodeRows
                    + " decodeContext=" + decodeContext + " prefillPairs=" + prefillPairs);
        }
    }

    /** A step of {@code sequences} decode rows at {@code context} positions each. */
    public static StepShape decode(int sequences, int context) {
        return new StepShape(sequences, sequences, (long) sequences * context, 0);
    }

    /** A step of one prompt chunk of {@code tokens} tokens after {@code start} positions. */
    public static StepShape prefill(int tokens, int start) {
        return new StepShape(tokens, 0, 0, pairs(tokens, start));
    }

    /**
     * The shape of {@code segments} before they run: a segment of one token after a non-empty cache decodes,
     * any other is a prompt chunk.
     */
    public static StepShape of(List<ForwardPass.Segment> segments) {
        int rows = 0;
        int decodeRows = 0;
        long decodeContext = 0;
        long prefillPairs = 0;
        for (ForwardPass.Segment segment : segments) {
            int start = segment.cache().length();
            rows += segment.count();
            if (segment.count() == 1 && start > 0) {
                decodeRows++;
                decodeContext += start + 1;
            } else {
                prefillPairs += pairs(segment.count(), start);
            }
        }
        return new StepShape(rows, decodeRows, decodeContext, prefillPairs);
    }

    private static long pairs(int tokens, int start) {
        return (long) tokens * start + (long) tokens * (tokens + 1) / 2;
    }
}
