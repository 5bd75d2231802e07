package io.squall.kvgrid.offload;

import io.squall.kvgrid.Tier;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * How to build an {@link OffloadManager}.
 *
 * @param stores           the lower tiers, at most one per tier (not G1), all with the same
 *                         {@link BlockStore#blockBytes()}; kept sorted fastest first
 * @param policy           which tiers an evicted block goes to
 * @param stagingBuffers   pages buffered between an eviction that finds its block not yet in the tiers the
 *                         policy wants and the write there, &gt; 0; when none is free the pool's thread waits
 *                         for one, briefly, and then drops the copy (counted, logged)
 * @param maxOnboardBlocks most blocks one onboard brings back, &gt; 0
 */
public record OffloadConfig(List<BlockStore> stores, OffloadPolicy policy, int stagingBuffers, int maxOnboardBlocks) {

    public OffloadConfig {
        Objects.requireNonNull(policy, "policy");
        stores = stores.stream().sorted(Comparator.comparing(BlockStore::tier)).toList();
        Set<Tier> tiers = EnumSet.noneOf(Tier.class);
        for (BlockStore store : stores) {
            if (store.tier() == Tier.G1 || !tiers.add(store.tier())) {
                throw new IllegalArgumentException("stores must be lower tiers, at most one per tier");
            }
        }
        if (stores.isEmpty() || stores.stream().mapToLong(BlockStore::blockBytes).distinct().count() != 1) {
            throw new IllegalArgumentException("stores must be non-empty and share one blockBytes");
        }
        if (stagingBuffers <= 0) {
            throw new IllegalArgumentException("stagingBuffers must be > 0");
        }
        if (maxOnboardBlocks <= 0) {
            throw new IllegalArgumentException("maxOnboardBlocks must be > 0");
        }
    }

    /** The store of {@code tier}, or {@code null} when there is none. */
    public BlockStore store(Tier tier) {
        return stores.stream().filter(store -> store.tier() == tier).findFirst().orElse(null);
    }

    /** Bytes per page, shared by every store. */
    public long blockBytes() {
        return stores.getFirst().blockBytes();
    }
}
