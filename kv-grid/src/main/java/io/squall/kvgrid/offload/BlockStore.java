package io.squall.kvgrid.offload;

import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.Tier;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * One lower tier holding whole KV pages by chained hash, bounded in size. A read returns the exact
 * bytes that were put or reports the block missing — never other bytes.
 *
 * <p>Implementations are thread-safe. Calls may block on I/O: the {@link OffloadManager} makes them on
 * its own thread, never on the scheduler's.
 */
public interface BlockStore extends AutoCloseable {

    /** The tier this store implements: G2, G3 or G4. */
    Tier tier();

    /** Size of every page this store holds, in bytes. */
    long blockBytes();

    /**
     * Stores a copy of {@code page} under {@code hash}, replacing any earlier copy, evicting blocks if
     * needed to stay within bounds.
     *
     * @param page exactly {@link #blockBytes()} bytes
     * @return the hashes this store evicted to make room (empty when none, or when the store evicts on
     *     its own, as the grid does)
     * @throws java.io.UncheckedIOException if the copy could not be written
     */
    List<BlockHash> put(BlockHash hash, MemorySegment page);

    /**
     * Copies the block's bytes into {@code target}. On anything but {@link ReadResult#HIT} the contents
     * of {@code target} are unspecified.
     *
     * @param target at least {@link #blockBytes()} bytes
     */
    ReadResult read(BlockHash hash, MemorySegment target);

    /** Whether the store holds {@code hash}, without counting as a use for eviction. */
    boolean contains(BlockHash hash);

    /** Drops the block; returns whether it was held. */
    boolean remove(BlockHash hash);

    /** Blocks held now. */
    long blockCount();

    /** Releases the store's resources; the stored blocks of a local tier are gone afterwards. */
    @Override
    void close();
}
