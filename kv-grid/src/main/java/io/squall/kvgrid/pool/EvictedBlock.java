package io.squall.kvgrid.pool;

import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.KvEvent.StoredBlock;
import java.util.Objects;

/**
 * A cached block the pool is about to reuse: what it held, for offloading to lower tiers.
 *
 * @param parent the chained hash of the block before it, or {@code null} for a sequence's first block
 * @param block  its chained and local hashes
 * @param hits   prefix hits it had while in G1
 */
public record EvictedBlock(BlockHash parent, StoredBlock block, int hits) {
    public EvictedBlock {
        Objects.requireNonNull(block, "block");
    }
}
