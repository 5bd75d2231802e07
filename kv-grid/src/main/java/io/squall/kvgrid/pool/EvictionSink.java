package io.squall.kvgrid.pool;

import java.lang.foreign.MemorySegment;

/**
 * Where a {@link BlockPool}'s full blocks go below G1. It is told about each cached block just before the
 * pool evicts it, while its page still holds its data ({@link #evicted}); a sink that
 * {@linkplain #copiesEagerly() copies eagerly} is also lent every block as it is committed
 * ({@link #committed}), so that it can copy the page down long before the eviction, and told when such a
 * block, still waiting for its copy, is released by its last holder ({@link #released}) and so becomes an
 * eviction candidate.
 *
 * <p>Every method is called on the pool's owner thread and must not block for long: {@link #evicted} must
 * copy what it needs out of {@code page} before returning (the page is overwritten afterwards).
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

    /** Whether the pool should lend committed blocks to {@link #committed}; asked once, at construction. */
    default boolean copiesEagerly() {
        return false;
    }

    /** A block was committed and lent for an eager copy (see {@link CommittedBlock} for the protocol). */
    default void committed(CommittedBlock block) {
    }

    /**
     * The last holder of a lent block released it before its copy started: it is cached now and may be
     * evicted next, so its copy has become urgent.
     *
     * @param hits prefix hits the block had in G1 so far
     */
    default void released(CommittedBlock block, int hits) {
    }
}
