package io.squall.kvgrid.offload;

import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.pool.EvictedBlock;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which lower tiers hold each block this worker offloaded, with the block's parent and local hash (for
 * the {@code Stored} event of a block moving down a tier). Kept in step with the stores by the
 * {@link OffloadManager}, through which every change of a local tier goes; for G4, which evicts on its
 * own, a tier is forgotten only when a read finds the block gone. Advisory: a stale answer costs a
 * redundant copy or a missed one, never wrong bytes (reads always go to the store).
 *
 * <p>Thread-safe (atomic per block).
 */
final class Residency {

    private record Entry(EvictedBlock contents, int tiers) {
    }

    private final ConcurrentHashMap<BlockHash, Entry> blocks = new ConcurrentHashMap<>();

    void added(EvictedBlock contents, Tier tier) {
        blocks.merge(contents.block().hash(), new Entry(contents, bit(tier)),
                (old, added) -> new Entry(old.contents(), old.tiers() | added.tiers()));
    }

    void removed(BlockHash hash, Tier tier) {
        blocks.computeIfPresent(hash, (h, old) -> {
            int tiers = old.tiers() & ~bit(tier);
            return tiers == 0 ? null : new Entry(old.contents(), tiers);
        });
    }

    boolean holds(BlockHash hash, Tier tier) {
        Entry entry = blocks.get(hash);
        return entry != null && (entry.tiers() & bit(tier)) != 0;
    }

    /** The block's parent and hashes, or {@code null} when no lower tier holds it. */
    EvictedBlock contents(BlockHash hash) {
        Entry entry = blocks.get(hash);
        return entry == null ? null : entry.contents();
    }

    private static int bit(Tier tier) {
        return 1 << tier.ordinal();
    }
}
