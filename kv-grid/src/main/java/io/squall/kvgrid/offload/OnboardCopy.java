package io.squall.kvgrid.offload;

import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.KvEvent.StoredBlock;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.metrics.KvStats;
import io.squall.kvgrid.pool.Allocation;
import io.squall.kvgrid.pool.BlockPool;
import io.squall.kvgrid.pool.KvBlock;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Objects;

/**
 * Blocks read from lower tiers by {@link OffloadManager#onboard}, verified and staged in memory, waiting
 * to be installed into G1 by the pool's owner thread.
 *
 * <p>Not thread-safe: hand it to the owner thread (completing the future does) and call
 * {@link #install} there, once.
 */
public final class OnboardCopy {

    private final BlockHash parent;
    private final List<StoredBlock> blocks;
    private final List<Tier> sources;
    private final MemorySegment staged;
    private final long blockBytes;
    private final KvStats stats;
    private boolean installed;

    OnboardCopy(BlockHash parent, List<StoredBlock> blocks, List<Tier> sources, MemorySegment staged,
                long blockBytes, KvStats stats) {
        this.parent = parent;
        this.blocks = List.copyOf(blocks);
        this.sources = List.copyOf(sources);
        this.staged = staged;
        this.blockBytes = blockBytes;
        this.stats = stats;
    }

    /** The blocks found, continuing the prompt's prefix in order (possibly none). */
    public List<StoredBlock> blocks() {
        return blocks;
    }

    /** The tier each of {@link #blocks()} was read from. */
    public List<Tier> sources() {
        return sources;
    }

    /**
     * Allocates G1 blocks, copies the staged pages into them and commits their hashes (recording
     * {@code Stored} in G1). Call on the pool's owner thread, at most once.
     *
     * @return the G1 blocks, in prefix order, owned by the caller; or {@link Allocation.NoCapacity}
     */
    public Allocation install(BlockPool pool) {
        Objects.requireNonNull(pool, "pool");
        if (installed) {
            throw new IllegalStateException("onboard copy already installed");
        }
        if (pool.layout().blockBytes() != blockBytes) {
            throw new IllegalArgumentException("pool page size differs from the stores'");
        }
        installed = true;
        Allocation allocation = pool.allocate(blocks.size());
        if (allocation instanceof Allocation.Allocated(List<KvBlock> g1)) {
            BlockHash previous = parent;
            for (int i = 0; i < g1.size(); i++) {
                MemorySegment.copy(staged, i * blockBytes, pool.page(g1.get(i)), 0, blockBytes);
                pool.commit(g1.get(i), previous, blocks.get(i));
                previous = blocks.get(i).hash();
                stats.onboarded(sources.get(i), Tier.G1, 1);
                stats.prefixMatched(sources.get(i), pool.layout().blockSize());
            }
        }
        return allocation;
    }
}
