package io.squall.kvgrid.pool;

import io.squall.kvgrid.BlockHash;

/** Plain LRU: admission always succeeds, so the cached list is in release order. Stateless. */
enum LruPolicy implements EvictionPolicy {
    INSTANCE;

    @Override
    public void recordAccess(BlockHash hash) {
        // LRU order is the list order itself; nothing to count.
    }

    @Override
    public boolean admit(BlockHash candidate, BlockHash victim) {
        return true;
    }
}
