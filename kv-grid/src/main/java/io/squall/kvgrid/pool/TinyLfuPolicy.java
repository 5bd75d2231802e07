package io.squall.kvgrid.pool;

import io.squall.kvgrid.BlockHash;

/**
 * TinyLFU admission over an LRU list: access frequencies are estimated by a {@link CountMinSketch}
 * that ages (halves) periodically, so old popularity fades; a released block is admitted only if its
 * estimated frequency is strictly higher than the next victim's. Not thread-safe (owner thread only).
 */
final class TinyLfuPolicy implements EvictionPolicy {

    private final CountMinSketch sketch;

    TinyLfuPolicy(int capacityBlocks) {
        if (capacityBlocks <= 0) {
            throw new IllegalArgumentException("capacityBlocks must be > 0");
        }
        this.sketch = new CountMinSketch(capacityBlocks);
    }

    @Override
    public void recordAccess(BlockHash hash) {
        sketch.increment(hash.value());
    }

    @Override
    public boolean admit(BlockHash candidate, BlockHash victim) {
        return sketch.estimate(candidate.value()) > sketch.estimate(victim.value());
    }
}
