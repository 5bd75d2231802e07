package io.squall.functions.api;

import io.squall.kvgrid.BlockHash;

import java.util.List;

/**
 * The {@code kv.fetch} route's request: the chained hashes of consecutive blocks of one prefix, in
 * order. The responder streams a {@link KvBlockFrame} for each leading hash it holds in its lower tiers
 * (frame {@code index} = position in {@link #hashes()}) and completes at the first one it does not.
 *
 * @param hashes 1 to {@value #MAX_BLOCKS} block hashes (copied; unmodifiable)
 */
public record KvFetchRequest(List<BlockHash> hashes) {

    /** Most blocks one request asks for. */
    public static final int MAX_BLOCKS = 4096;

    public KvFetchRequest {
        hashes = List.copyOf(hashes);
        if (hashes.isEmpty() || hashes.size() > MAX_BLOCKS) {
            throw new IllegalArgumentException("a KV fetch asks for 1 to " + MAX_BLOCKS + " blocks");
        }
    }
}
