package io.squall.kvgrid.pool;

import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.KvEvent.StoredBlock;

/**
 * One page of a {@link BlockPool}: its id (the page index, which a block table stores), its reference
 * count (how many running sequences use it) and, once the block is full, its hash — set once by
 * {@link BlockPool#commit} and cleared only when the block is evicted and reused.
 *
 * <p>A block with reference count 0 sits in one of the pool's intrusive lists: the empty list when it
 * has no hash, the cached list (eviction order) when it has one. The links live here so moving a block
 * between lists allocates nothing and unlinking it is O(1).
 *
 * <p>Not thread-safe: read and changed only by the pool's owner thread.
 */
public final class KvBlock {

    private final int id;
    int refCount;
    /** The committed chained hash and local hash, or {@code null} while the block is not full. */
    StoredBlock stored;
    /** The chained hash of the block before this one, or {@code null} for a sequence's first block. */
    BlockHash parent;
    /** Prefix hits since the block was committed. */
    int hits;
    KvBlock prev;
    KvBlock next;

    KvBlock(int id) {
        this.id = id;
    }

    /** The page index in the pool, 0 ≤ id &lt; capacity. */
    public int id() {
        return id;
    }

    /** How many holders use the block; 0 means it is free (empty or cached). */
    public int refCount() {
        return refCount;
    }

    /** The block's chained hash, or {@code null} when it has not been committed as full. */
    public BlockHash hash() {
        return stored == null ? null : stored.hash();
    }

    /** Times a prefix lookup found this block since it was committed. */
    public int hits() {
        return hits;
    }

    @Override
    public String toString() {
        return "KvBlock[" + id + ", ref=" + refCount + ", hash=" + hash() + "]";
    }
}
