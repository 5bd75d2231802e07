package io.squall.functions.engine.mock;

import java.util.Arrays;

/**
 * How long a forward pass takes, as a function of its {@link StepShape}:
 * {@code base(rows) + decodeContext × secondsPerDecodeContextToken + prefillPairs × secondsPerPrefillPair}.
 *
 * <p>{@code base} is the cost of running {@code rows} tokens through the weights (streaming them once, plus the
 * per-row arithmetic), piecewise linear between measured knots and extended linearly past the last two; the
 * two attention terms are the reads of the decode rows' cached context (memory-bound on most hardware) and the
 * query-key work of prompt chunks (compute-bound), which is why they are separate coefficients. Everything a
 * step of the real engine spends besides the forward pass (sampling, bookkeeping) is part of the measured
 * times, and so of these coefficients.
 *
 * @param knotRows the row counts where {@code base} was measured, ascending, the first at least 1
 * @param knotSeconds {@code base} at each knot, in seconds
 * @param secondsPerDecodeContextToken seconds per position read by a decode row's attention
 * @param secondsPerPrefillPair seconds per query-key pair of a prompt chunk
 */
public record StepTimingModel(int[] knotRows, double[] knotSeconds, double secondsPerDecodeContextToken,
                              double secondsPerPrefillPair) {

    public StepTimingModel {
        if (knotRows.length == 0 || knotRows.length != knotSeconds.length) {
            throw new IllegalArgumentException("the base cost needs one time per knot and at least one knot");
        }
        knotRows = knotRows.clone();
        knotSeconds = knotSeconds.clone();
        for (int i = 0; i < knotRows.length; i++) {
            if (knotRows[i] < 1 || i > 0 && knotRows[i] <= knotRows[i - 1]) {
                throw new IllegalArgumentException("knot rows must be ascending and positive: " + Arrays.toString(knotRows));
            }
            if (!(knotSeconds[i] >= 0) || Double.isInfinite(knotSeconds[i])) {
                throw new IllegalArgumentException("knot times must be finite and non-negative: " + Arrays.toString(knotSeconds));
            }
        }
        if (!(secondsPerDecodeContextToken >= 0) || !(secondsPerPrefillPair >= 0)
                || Double.isInfinite(secondsPerDecodeContextToken) || Double.isInfinite(secondsPerPrefillPair)) {
            throw new IllegalArgumentException("attention coefficients must be finite and non-negative");
        }
    }

    /** Seconds a step of {@code shape} takes; 0 for an empty step. */
    public double seconds(StepShape shape) {
        if (shape.rows() == 0) {
            return 0;
        }
        return base(shape.rows()) + shape.decodeContext() * secondsPerDecodeContextToken
                + shape.prefillPairs() * secondsPerPrefillPair;
    }

    /** The cost of running {@code rows} tokens through the weights, in seconds. */
    public double base(int rows) {
        int n = knotRows.length;
        if (n == 1 || rows <= knotRows[0]) {
            return knotSeconds[0]; // one knot: a constant cost
        }
        int i = Arrays.binarySearch(knotRows, rows);
        if (i >= 0) {
            return knotSeconds[i];
        }
        int hi = Math.min(-i - 1, n - 1); // past the last knot: the last segment's slope goes on
        int lo = hi - 1;
        double slope = (knotSeconds[hi] - knotSeconds[lo]) / (knotRows[hi] - knotRows[lo]);
        return Math.max(0, knotSeconds[lo] + slope * (rows - knotRows[lo]));
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof StepTimingModel m && Arrays.equals(knotRows, m.knotRows)
                && Arrays.equals(knotSeconds, m.knotSeconds)
                && Double.compare(secondsPerDecodeContextToken, m.secondsPerDecodeContextToken) == 0
                && Double.compare(secondsPerPrefillPair, m.secondsPerPrefillPair) == 0;
    }

    @Override
    public int hashCode() {
        return 31 * (31 * Arrays.hashCode(knotRows) + Arrays.hashCode(knotSeconds))
                + Double.hashCode(secondsPerDecodeContextToken) + 7 * Double.hashCode(secondsPerPrefillPair);
    }

    @Override
    public String toString() {
        return "StepTimingModel[knots=" + Arrays.toString(knotRows) + " seconds=" + Arrays.toString(knotSeconds)
                + " decodeContextToken=" + secondsPerDecodeContextToken + " prefillPair=" + secondsPerPrefillPair + "]";
    }
}
