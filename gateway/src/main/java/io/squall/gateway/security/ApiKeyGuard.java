package io.squall.gateway.security;

import io.squall.gateway.openai.ApiError;
import io.squall.gateway.openai.ApiException;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Authenticates requests by API key ({@code Authorization: Bearer <key>}) and applies each key's rate limit.
 * With no keys configured every request is let in (and rate-limited as one anonymous client when a limit
 * is set). Keys are compared in constant time ({@link MessageDigest#isEqual}) against every configured key,
 * so timing reveals neither a key's prefix nor which key matched. Keys never appear in messages or logs.
 *
 * <p>Thread-safe.
 */
public final class ApiKeyGuard {

    private static final String BEARER = "Bearer ";
    private static final String ANONYMOUS = "";

    private final List<byte[]> keys;
    private final RateLimit rateLimit;
    private final LongSupplier clock;
    private final Map<String, TokenBucket> buckets = new ConcurrentHashMap<>();

    /**
     * Per-key request rate.
     *
     * @param requestsPerSecond sustained rate, positive
     * @param burst             requests allowed at once after idling, at least 1
     */
    public record RateLimit(double requestsPerSecond, int burst) {
        public RateLimit {
            if (!(requestsPerSecond > 0) || burst < 1) {
                throw new IllegalArgumentException("rate limit needs requestsPerSecond > 0 and burst >= 1");
            }
        }
    }

    /**
     * @param keys      accepted keys; empty disables authentication
     * @param rateLimit the per-key limit, or null for none
     * @param clock     monotonic nanoseconds ({@code System::nanoTime})
     */
    public ApiKeyGuard(List<String> keys, RateLimit rateLimit, LongSupplier clock) {
        this.keys = keys.stream().map(k -> k.getBytes(StandardCharsets.UTF_8)).toList();
        this.rateLimit = rateLimit;
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * Checks one request.
     *
     * @param authorization the {@code Authorization} header value (or RSocket bearer token prefixed {@code Bearer }),
     *                      null when absent
     * @throws ApiException 401 when a key is required and missing or wrong, 429 when the key's rate is exhausted
     */
    public void check(String authorization) {
        String identity = ANONYMOUS;
        if (!keys.isEmpty()) {
            if (authorization == null || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
                throw new ApiException(ApiError.UNAUTHORIZED, "missing API key: send 'Authorization: Bearer <key>'",
                        null, "invalid_api_key");
            }
            byte[] presented = authorization.substring(BEARER.length()).strip().getBytes(StandardCharsets.UTF_8);
            boolean match = false;
            for (byte[] key : keys) {
                match |= MessageDigest.isEqual(key, presented);
            }
            if (!match) {
                throw new ApiException(ApiError.UNAUTHORIZED, "incorrect API key", null, "invalid_api_key");
            }
            identity = new String(presented, StandardCharsets.UTF_8);
        }
        if (rateLimit != null) {
            long now = clock.getAsLong();
            TokenBucket bucket = buckets.computeIfAbsent(identity,
                    k -> new TokenBucket(rateLimit.requestsPerSecond(), rateLimit.burst(), now));
            if (!bucket.tryTake(now)) {
                throw new ApiException(ApiError.RATE_LIMITED, "rate limit exceeded for this API key; retry later",
                        null, "rate_limit_exceeded");
            }
        }
    }
}
