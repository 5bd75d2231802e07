package io.squall.functions.discovery.traffic;

import java.util.Arrays;

/**
 * Counts of latencies in logarithmic buckets, {@value #PER_DECADE} per decade from {@value #MIN_SECONDS} s to
 * {@value #MAX_SECONDS} s (a bucket's bounds differ by about 21%), plus one bucket each below and above: small
 * enough to publish every second, mergeable across gateways and subtractable between two snapshots of one, which
 * gives an interval's distribution. Percentiles are estimated within a bucket by geometric interpolation. Immutable.
 */
public final class LatencyHistogram {

    static final int PER_DECADE = 12;
    static final double MIN_SECONDS = 1e-5;
    static final double MAX_SECONDS = 1e4;
    /** Buckets between the bounds, plus the underflow (index 0) and overflow (last) buckets. */
    static final int BUCKETS = (int) Math.round(Math.log10(MAX_SECONDS / MIN_SECONDS) * PER_DECADE) + 2;

    private static final LatencyHistogram EMPTY = new LatencyHistogram(new long[BUCKETS]);

    private final long[] counts;

    private LatencyHistogram(long[] counts) {
        this.counts = counts;
    }

    public static LatencyHistogram empty() {
        return EMPTY;
    }

    /** A histogram of the given bucket counts, as {@link #counts()} returned them. */
    public static LatencyHistogram of(long[] counts) {
        if (counts.length != BUCKETS) {
            throw new IllegalArgumentException("a latency histogram has " + BUCKETS + " buckets, not " + counts.length);
        }
        for (long c : counts) {
            if (c < 0) {
                throw new IllegalArgumentException("bucket counts must not be negative");
            }
        }
        return new LatencyHistogram(counts.clone());
    }

    /** The bucket of a latency of {@code seconds}. */
    static int bucket(double seconds) {
        if (!(seconds >= MIN_SECONDS)) {
            return 0;
        }
        if (seconds >= MAX_SECONDS) {
            return BUCKETS - 1;
        }
        return 1 + Math.min(BUCKETS - 3, (int) Math.floor(Math.log10(seconds / MIN_SECONDS) * PER_DECADE));
    }

    /** The lower bound of bucket {@code index} (1 .. BUCKETS - 2), in seconds. */
    private static double lower(int index) {
        return MIN_SECONDS * Math.pow(10, (index - 1) / (double) PER_DECADE);
    }

    public long[] counts() {
        return counts.clone();
    }

    public long total() {
        long total = 0;
        for (long c : counts) {
            total += c;
        }
        return total;
    }

    /** This plus {@code other}: the latencies of both. */
    public LatencyHistogram plus(LatencyHistogram other) {
        long[] sum = counts.clone();
        for (int i = 0; i < sum.length; i++) {
            sum[i] += other.counts[i];
        }
        return new LatencyHistogram(sum);
    }

    /**
     * The latencies recorded since {@code earlier}, a snapshot of the same growing histogram; empty when this is
     * not a continuation of it (the recorder restarted).
     */
    public LatencyHistogram since(LatencyHistogram earlier) {
        long[] delta = new long[BUCKETS];
        for (int i = 0; i < delta.length; i++) {
            delta[i] = counts[i] - earlier.counts[i];
            if (delta[i] < 0) {
                return this;
            }
        }
        return new LatencyHistogram(delta);
    }

    /** The {@code p}-th percentile (0–100) in seconds, or NaN when empty. */
    public double percentile(double p) {
        long total = total();
        if (total == 0) {
            return Double.NaN;
        }
        double rank = Math.max(1, Math.ceil(p / 100 * total));
        long seen = 0;
        for (int i = 0; i < counts.length; i++) {
            if (counts[i] == 0) {
                continue;
            }
            if (seen + counts[i] >= rank) {
                if (i == 0) {
                    return MIN_SECONDS;
                }
                if (i == BUCKETS - 1) {
                    return MAX_SECONDS;
                }
                double within = (rank - seen) / counts[i];
                return lower(i) * Math.pow(10, within / PER_DECADE);
            }
            seen += counts[i];
        }
        return MAX_SECONDS;
    }

    /** The mean, taking each latency at its bucket's geometric middle; NaN when empty. */
    public double mean() {
        long total = total();
        if (total == 0) {
            return Double.NaN;
        }
        double sum = counts[0] * MIN_SECONDS + counts[BUCKETS - 1] * MAX_SECONDS;
        for (int i = 1; i < BUCKETS - 1; i++) {
            sum += counts[i] * lower(i) * Math.pow(10, 0.5 / PER_DECADE);
        }
        return sum / total;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof LatencyHistogram h && Arrays.equals(counts, h.counts);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(counts);
    }
}
