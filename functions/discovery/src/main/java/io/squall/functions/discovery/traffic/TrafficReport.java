package io.squall.functions.discovery.traffic;

import java.util.Objects;

/**
 * What one gateway has served since it started, as it publishes it for planners: cumulative counters and latency
 * histograms, so two snapshots give any interval's traffic. Planners read every gateway's report and add them up.
 *
 * @param gateway      the publishing gateway's id
 * @param atMillis     when the snapshot was taken (epoch ms)
 * @param requests     generation requests received (every choice counts)
 * @param finished     requests that ended normally
 * @param failed       requests that ended in an error
 * @param tokens       the finished requests' prompt, generated and cached tokens
 * @param ttft         time to first token of each request that got one
 * @param itl          time between successive tokens of each request
 */
public record TrafficReport(String gateway, long atMillis, long requests, long finished, long failed,
                            TokenCounts tokens, LatencyHistogram ttft, LatencyHistogram itl) {

    public TrafficReport {
        Objects.requireNonNull(gateway, "gateway");
        Objects.requireNonNull(tokens, "tokens");
        Objects.requireNonNull(ttft, "ttft");
        Objects.requireNonNull(itl, "itl");
        if (requests < 0 || finished < 0 || failed < 0) {
            throw new IllegalArgumentException("traffic counters must not be negative");
        }
    }

    /** A gateway that has served nothing yet. */
    public static TrafficReport empty(String gateway, long atMillis) {
        return new TrafficReport(gateway, atMillis, 0, 0, 0, TokenCounts.NONE, LatencyHistogram.empty(),
                LatencyHistogram.empty());
    }

    /**
     * The traffic between {@code earlier} (a snapshot of the same gateway) and this one; all of this one when the
     * gateway restarted in between (a counter went down).
     */
    public TrafficReport since(TrafficReport earlier) {
        TokenCounts tokensSince = tokens.since(earlier.tokens);
        if (!gateway.equals(earlier.gateway) || requests < earlier.requests || finished < earlier.finished
                || failed < earlier.failed || tokensSince == null) {
            return this;
        }
        return new TrafficReport(gateway, atMillis, requests - earlier.requests, finished - earlier.finished,
                failed - earlier.failed, tokensSince, ttft.since(earlier.ttft), itl.since(earlier.itl));
    }

    /** This and {@code other} together, as one gateway's traffic named {@code gateway}. */
    public TrafficReport plus(TrafficReport other, String gateway) {
        return new TrafficReport(gateway, Math.max(atMillis, other.atMillis), requests + other.requests,
                finished + other.finished, failed + other.failed, tokens.plus(other.tokens), ttft.plus(other.ttft),
                itl.plus(other.itl));
    }
}
