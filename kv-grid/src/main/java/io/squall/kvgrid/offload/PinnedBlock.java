package io.squall.kvgrid.offload;

import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.Tier;
import java.lang.foreign.MemorySegment;

/**
 * A block a {@link BlockStore} lends in place ({@link BlockStore#pin}): its bytes stay put and unchanged
 * until {@link #close()}. Close it exactly once; reading {@link #page()} afterwards reads whatever the
 * store keeps there next. Thread-safe to read from any thread while open.
 */
public interface PinnedBlock extends AutoCloseable {

    BlockHash hash();

    /** The tier lending it. */
    Tier tier();

    /** The block's bytes, in place. */
    MemorySegment page();

    /** Hands the block back to the store, which may evict or replace it from now on. */
    @Override
    void close();
}
