package io.squall.kvgrid.pool;

import java.lang.foreign.MemorySegment;

/**
 * Told about each cached block just before the pool evicts it, while its page still holds its data.
 * Called on the pool's owner thread inside {@link BlockPool#allocate}: an implementation must copy what
 * it needs out of {@code page} before returning (the page is overwritten afterwards) and must not block.
 */
@FunctionalInterface
public interface EvictionSink {

    /** Drops evicted blocks: for a pool without lower tiers. */
    EvictionSink DISCARD = (block, page) -> { };

    /**
     * @param block what the page held
     * @param page  the page, {@link KvLayout#blockBytes()} bytes, valid only during this call
     */
    void evicted(EvictedBlock block, MemorySegment page);
}
