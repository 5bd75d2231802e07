package io.squall.functions.discovery.traffic;

/**
 * Token counters of the requests a gateway finished, cumulative.
 *
 * @param input           prompt tokens
 * @param output          generated tokens
 * @param cached          prompt tokens workers served from cache
 * @param uncachedSquared the sum over requests of the squared count of prompt tokens they computed: with {@code
 *                        input − cached} it gives the spread of prefill work, which a planner's queueing model needs
 *                        (long prompts behind which short ones wait)
 */
public record TokenCounts(long input, long output, long cached, long uncachedSquared) {

    public static final TokenCounts NONE = new TokenCounts(0, 0, 0, 0);

    public TokenCounts {
        if (input < 0 || output < 0 || cached < 0 || uncachedSquared < 0) {
            throw new IllegalArgumentException("token counters must not be negative");
        }
    }

    /** These counters less {@code earlier}'s, or null when one went down (the gateway restarted in between). */
    TokenCounts since(TokenCounts earlier) {
        if (input < earlier.input || output < earlier.output || cached < earlier.cached
                || uncachedSquared < earlier.uncachedSquared) {
            return null;
        }
        return new TokenCounts(input - earlier.input, output - earlier.output, cached - earlier.cached,
                uncachedSquared - earlier.uncachedSquared);
    }

    TokenCounts plus(TokenCounts other) {
        return new TokenCounts(input + other.input, output + other.output, cached + other.cached,
                uncachedSquared + other.uncachedSquared);
    }
}
