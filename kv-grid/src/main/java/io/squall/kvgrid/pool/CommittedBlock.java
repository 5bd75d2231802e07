package io.squall.kvgrid.pool;

import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.KvEvent.StoredBlock;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * A committed G1 block lent by its {@link BlockPool} to an {@link EvictionSink} for an eager copy to lower
 * tiers: the copy can be made on another thread while the block is in use or cached, long before the pool
 * needs the page back.
 *
 * <p>Protocol: the copying thread calls {@link #tryBegin()}; if it returns {@code true} it may read
 * {@link #page()} until it calls {@link #end(boolean)}, and the pool will not reuse the page meanwhile (an
 * eviction waits the length of that copy). If it returns {@code false} the pool has already evicted or
 * reset the block (or another copy ran): the page may hold other data and must not be read. A block the
 * copy finished with {@code end(true)} is <em>safe</em>: the pool evicts safe blocks first.
 *
 * <p>Thread-safe: {@link #tryBegin()} and {@link #end(boolean)} are atomic on the block's copy state; the
 * other accessors are immutable.
 */
public final class CommittedBlock {

    private final KvBlock block;
    private final long queued;
    private final EvictedBlock contents;
    private final MemorySegment page;

    CommittedBlock(KvBlock block, long queued, EvictedBlock contents, MemorySegment page) {
        this.block = block;
        this.queued = queued;
        this.contents = Objects.requireNonNull(contents, "contents");
        this.page = page;
    }

    /** The block's chained hash. */
    public BlockHash hash() {
        return contents.block().hash();
    }

    /** What the page holds: its parent, hashes and (at commit) 0 hits. */
    public EvictedBlock contents() {
        return contents;
    }

    /** The chained and local hash, as a {@code Stored} event carries them. */
    public StoredBlock stored() {
        return contents.block();
    }

    /** The page; read it only between a successful {@link #tryBegin()} and {@link #end(boolean)}. */
    public MemorySegment page() {
        return page;
    }

    /**
     * Claims the page for copying if the pool still holds these contents and no copy has started.
     *
     * @return whether the caller may now read {@link #page()} (and must call {@link #end(boolean)})
     */
    public boolean tryBegin() {
        return block.casCopyState(queued, KvBlock.withState(queued, KvBlock.COPYING));
    }

    /**
     * Gives the page back to the pool after a successful {@link #tryBegin()}.
     *
     * @param copied whether a lower tier now holds (or is about to hold) the page's bytes
     */
    public void end(boolean copied) {
        long copying = KvBlock.withState(queued, KvBlock.COPYING);
        if (!block.casCopyState(copying, KvBlock.withState(queued, copied ? KvBlock.SAFE : KvBlock.IDLE))) {
            throw new IllegalStateException("end without a successful tryBegin");
        }
    }

    /** Whether the copy is still waiting to start (the pool has neither evicted the block nor copied it). */
    public boolean isQueued() {
        return block.copyState() == queued;
    }

    @Override
    public String toString() {
        return "CommittedBlock[" + block.id() + ", " + hash() + "]";
    }
}
