package io.squall.gateway.security;

/**
 * A token bucket: holds up to {@code burst} tokens, refilled continuously at {@code perSecond}; each request
 * takes one. Thread-safe (synchronized; O(1) per call).
 */
final class TokenBucket {

    private final double perSecond;
    private final double burst;
    private double tokens;
    private long lastNanos;

    TokenBucket(double perSecond, double burst, long nowNanos) {
        this.perSecond = perSecond;
        this.burst = burst;
        this.tokens = burst;
        this.lastNanos = nowNanos;
    }

    /** Takes one token if there is one. */
    synchronized boolean tryTake(long nowNanos) {
        tokens = Math.min(burst, tokens + (nowNanos - lastNanos) / 1e9 * perSecond);
        lastNanos = nowNanos;
        if (tokens >= 1) {
            tokens -= 1;
            return true;
        }
        return false;
    }
}
