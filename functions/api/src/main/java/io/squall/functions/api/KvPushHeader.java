package io.squall.functions.api;

/**
 * The first payload of a {@code kv.push} channel: which reservation the {@link KvBlockFrame}s that follow
 * fill, and how many of them there will be.
 *
 * @param reservation the decode worker's handle, from {@link PrefillRequest#reservation()}
 * @param blocks frames that follow, one per reserved page, &gt; 0
 */
public record KvPushHeader(long reservation, int blocks) {

    public KvPushHeader {
        if (blocks <= 0) {
            throw new IllegalArgumentException("a KV push carries at least one block");
        }
    }
}
