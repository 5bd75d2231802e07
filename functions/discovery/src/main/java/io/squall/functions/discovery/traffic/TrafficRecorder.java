package io.squall.functions.discovery.traffic;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * A gateway's running {@link TrafficReport}: requests, tokens and latencies are added as they happen, from any
 * thread, without locks; {@link #snapshot} reads them for publication.
 */
public final class TrafficRecorder {

    private final String gateway;
    private final LongAdder requests = new LongAdder();
    private final LongAdder finished = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LongAdder inputTokens = new LongAdder();
    private final LongAdder outputTokens = new LongAdder();
    private final LongAdder cachedTokens = new LongAdder();
    private final LongAdder uncachedSquared = new LongAdder();
    private final AtomicLongArray ttft = new AtomicLongArray(LatencyHistogram.BUCKETS);
    private final AtomicLongArray itl = new AtomicLongArray(LatencyHistogram.BUCKETS);

    /** @param gateway the id the snapshots carry */
    public TrafficRecorder(String gateway) {
        this.gateway = gateway;
    }

    public void requestStarted() {
        requests.increment();
    }

    public void requestFinished(int input, int output, int cached) {
        finished.increment();
        inputTokens.add(input);
        outputTokens.add(output);
        cachedTokens.add(cached);
        long computed = Math.max(0, input - cached);
        uncachedSquared.add(computed * computed);
    }

    public void requestFailed() {
        failed.increment();
    }

    public void timeToFirstToken(double seconds) {
        ttft.incrementAndGet(LatencyHistogram.bucket(seconds));
    }

    public void interTokenLatency(double seconds) {
        itl.incrementAndGet(LatencyHistogram.bucket(seconds));
    }

    /** Everything recorded so far, stamped {@code atMillis}. */
    public TrafficReport snapshot(long atMillis) {
        return new TrafficReport(gateway, atMillis, requests.sum(), finished.sum(), failed.sum(),
                new TokenCounts(inputTokens.sum(), outputTokens.sum(), cachedTokens.sum(), uncachedSquared.sum()),
                histogram(ttft), histogram(itl));
    }

    private static LatencyHistogram histogram(AtomicLongArray counts) {
        long[] copy = new long[counts.length()];
        for (int i = 0; i < copy.length; i++) {
            copy[i] = counts.get(i);
        }
        return LatencyHistogram.of(copy);
    }
}
