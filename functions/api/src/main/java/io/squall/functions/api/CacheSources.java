package io.squall.functions.api;

/**
 * Where the cached prompt tokens of a request came from, by KV tier, in tokens: G1 (the worker's working
 * pool), G2 (its host memory), G3 (its disk) and remote (another worker's lower tiers, or the Hazelcast
 * grid). Their sum is the request's cached tokens. Immutable.
 */
public record CacheSources(int g1, int g2, int g3, int remote) {

    /** Nothing cached. */
    public static final CacheSources NONE = new CacheSources(0, 0, 0, 0);

    public CacheSources {
        if (g1 < 0 || g2 < 0 || g3 < 0 || remote < 0) {
            throw new IllegalArgumentException("cached token counts must not be negative");
        }
    }

    /** Cached tokens from every tier together. */
    public int total() {
        return g1 + g2 + g3 + remote;
    }

    /**
     * The sources of the first {@code tokens} cached tokens: a prompt's cached prefix comes from G1 first,
     * then from the tiers it was onboarded from (G2, G3, remote), so the tokens past {@code tokens} are taken
     * off the last of those.
     *
     * @param tokens how many cached tokens to keep, &ge; 0
     */
    public CacheSources firstTokens(int tokens) {
        if (tokens < 0) {
            throw new IllegalArgumentException("tokens must not be negative");
        }
        int excess = Math.max(0, total() - tokens);
        int[] counts = {g1, g2, g3, remote};
        for (int i = counts.length - 1; i >= 0 && excess > 0; i--) {
            int cut = Math.min(excess, counts[i]);
            counts[i] -= cut;
            excess -= cut;
        }
        return new CacheSources(counts[0], counts[1], counts[2], counts[3]);
    }

    /** Both requests' counts added, tier by tier (the choices of one request, for example). */
    public CacheSources plus(CacheSources other) {
        return new CacheSources(g1 + other.g1, g2 + other.g2, g3 + other.g3, remote + other.remote);
    }
}
