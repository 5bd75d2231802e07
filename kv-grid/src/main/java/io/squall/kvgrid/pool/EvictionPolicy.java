package io.squall.kvgrid.pool;

import io.squall.kvgrid.BlockHash;

/**
 * Decides the order in which cached blocks (reference count 0, hashed) are evicted. The pool keeps
 * cached blocks in one list, evicting from its front; when a block becomes cached the policy either
 * admits it (it goes to the back, evicted last) or rejects it (it goes to the front, evicted next).
 *
 * <p>Called only from the pool's owner thread; implementations need no synchronisation.
 */
public interface EvictionPolicy {

    /** A block with this hash was committed or found by a prefix lookup. */
    void recordAccess(BlockHash hash);

    /**
     * Whether {@code candidate}, just released, should be kept ahead of {@code victim}, the block that
     * would be evicted next.
     */
    boolean admit(BlockHash candidate, BlockHash victim);

    /** Least recently released first: every candidate is admitted, nothing is counted. */
    static EvictionPolicy lru() {
        return LruPolicy.INSTANCE;
    }

    /**
     * Frequency-aware admission (TinyLFU): a candidate is kept only if it was accessed more often than
     * the victim, so a scan of one-off prefixes cannot flush frequently used ones.
     *
     * @param capacityBlocks the pool's capacity, sizing the frequency sketch
     */
    static EvictionPolicy tinyLfu(int capacityBlocks) {
        return new TinyLfuPolicy(capacityBlocks);
    }
}
