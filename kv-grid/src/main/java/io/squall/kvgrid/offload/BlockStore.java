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
 * its own threads, never on the scheduler's, except {@link #contains} on a local tier (G2, G3), which
 * must answer from memory.
 */
public interface BlockStore extends AutoCloseable {

    /** Told about each block a store evicts to make room, while its bytes are still intact. */
    @FunctionalInterface
    interface Spill {
        /** Makes no use of evicted blocks. */
        Spill NONE = (hash, page) -> { };

        /**
         * @param page the evicted block's bytes, valid only during this call (copy them, do not keep them);
         *             called under the store's lock, so it must not call back into the store
         */
        void evicted(BlockHash hash, MemorySegment page);
    }

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
     * As {@link #put(BlockHash, MemorySegment)}, showing each block evicted to make room to {@code spill}
     * first, so it can move down a tier. A store that cannot show evicted bytes cheaply (it would have to
     * read them back) evicts without calling {@code spill}; this default does so.
     */
    default List<BlockHash> put(BlockHash hash, MemorySegment page, Spill spill) {
        return put(hash, page);
    }

    /**
     * Copies the block's bytes into {@code target}. On anything but {@link ReadResult#HIT} the contents
     * of {@code target} are unspecified.
     *
     * @param target at least {@link #blockBytes()} bytes
     */
    ReadResult read(BlockHash hash, MemorySegment target);

    /**
     * Lends the block's bytes in place until the returned pin is closed; the store neither evicts nor
     * moves them meanwhile. Only stores in host memory can; this default cannot.
     *
     * @return the pinned block, or {@code null} when the store does not hold it or cannot lend pages
     */
    default PinnedBlock pin(BlockHash hash) {
        return null;
    }

    /** Whether the store holds {@code hash}, without counting as a use for eviction. */
    boolean contains(BlockHash hash);

    /**
     * Marks the block as just used, if held, so the store evicts it later; for a block whose copy the
     * caller would otherwise put again (equal hashes mean equal contents). This default only checks
     * presence.
     *
     * @return whether the store holds {@code hash}
     */
    default boolean touch(BlockHash hash) {
        return contains(hash);
    }

    /** Drops the block; returns whether it was held. */
    boolean remove(BlockHash hash);

    /** Blocks held now. */
    long blockCount();

    /** Releases the store's resources; the stored blocks of a local tier are gone afterwards. */
    @Override
    void close();
}
