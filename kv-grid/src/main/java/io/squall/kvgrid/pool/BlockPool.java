package io.squall.kvgrid.pool;

import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.KvEvent.StoredBlock;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.metrics.KvStats;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The worker's G1 KV cache: {@code numBlocks} fixed-size pages in one off-heap segment, handed out as
 * {@link KvBlock}s and kept, once released, as a prefix cache until evicted.
 *
 * <p>Free blocks (reference count 0) live in two intrusive lists: <em>empty</em> blocks without a hash,
 * handed out first, and <em>cached</em> blocks that still hold a full block's KV and are findable by
 * hash, evicted from the front of the list in the order the {@link EvictionPolicy} keeps. A prefix hit
 * unlinks a cached block in O(1) and gives it back to a sequence; a hash is set once, when the block
 * is full ({@link #commit}), and cleared only on eviction.
 *
 * <p>Lower tiers: with an {@link EvictionSink} that {@linkplain EvictionSink#copiesEagerly() copies
 * eagerly}, every committed block is lent to it ({@link CommittedBlock}) to be copied down while it is
 * still in use or cached, and eviction takes the oldest <em>safe</em> cached block (one whose copy is done)
 * among the first {@value #SAFE_SCAN} of the eviction order before any other; a block evicted before its
 * copy cancels the copy (or waits for the one in progress) and is shown to the sink's
 * {@link EvictionSink#evicted} like any other.
 *
 * <p>Every change of presence is recorded on the {@link KvEventPublisher} (tier G1): {@code Stored} on
 * commit, {@code Removed} on eviction (one event per {@link #allocate} call), {@code Cleared} on
 * {@link #reset()}.
 *
 * <p><b>Threading:</b> one owner thread (the engine's scheduler) calls every method; there are no locks.
 * The page memory is a shared segment: attention kernels and the offload threads may read and write the
 * pages of blocks the owner hands them while those blocks stay allocated, and the offload thread reads
 * lent pages as {@link CommittedBlock} allows.
 */
public final class BlockPool implements AutoCloseable {

    /** How far into the eviction order an eviction looks for a block that lower tiers already hold. */
    static final int SAFE_SCAN = 64;

    private final KvLayout layout;
    private final Arena arena;
    private final MemorySegment memory;
    private final KvBlock[] blocks;
    private final BlockList empty = new BlockList();
    private final BlockList cached = new BlockList();
    private final Map<BlockHash, KvBlock> byHash;
    private final EvictionPolicy policy;
    private final KvEventPublisher events;
    private final EvictionSink evictionSink;
    private final KvStats stats;
    private final boolean eager;

    /**
     * Allocates the pool's memory ({@code numBlocks × blockBytes}, zeroed as it is first touched).
     *
     * @param evictionSink told of each evicted block while its page is intact ({@link EvictionSink#DISCARD} for none)
     */
    public BlockPool(BlockPoolConfig config, EvictionPolicy policy, KvEventPublisher events,
                     EvictionSink evictionSink, KvStats stats) {
        Objects.requireNonNull(config, "config");
        this.policy = Objects.requireNonNull(policy, "policy");
        this.events = Objects.requireNonNull(events, "events");
        this.evictionSink = Objects.requireNonNull(evictionSink, "evictionSink");
        this.stats = Objects.requireNonNull(stats, "stats");
        this.eager = evictionSink.copiesEagerly();
        this.layout = config.layout();
        this.arena = Arena.ofShared();
        this.memory = ZeroedMemory.allocate(arena, layout.blockBytes() * config.numBlocks());
        this.blocks = new KvBlock[config.numBlocks()];
        this.byHash = HashMap.newHashMap(config.numBlocks());
        for (int id = 0; id < blocks.length; id++) {
            blocks[id] = new KvBlock(id);
            empty.addLast(blocks[id]);
        }
        stats.blocks(Tier.G1, 0);
    }

    public KvLayout layout() {
        return layout;
    }

    /** Pages in the pool. */
    public int capacity() {
        return blocks.length;
    }

    /** Blocks {@link #allocate} could hand out now: empty plus cached. */
    public int freeBlocks() {
        return empty.size() + cached.size();
    }

    /** Free blocks that still hold a findable full block. */
    public int cachedBlocks() {
        return cached.size();
    }

    /**
     * Takes {@code n} blocks, empty ones first, then evicting cached ones from the front of the eviction
     * order (each is shown to the {@link EvictionSink} first and reported as {@code Removed} in G1).
     *
     * @param n blocks wanted, ≥ 0
     * @return the blocks with reference count 1, or {@link Allocation.NoCapacity} (nothing changed)
     */
    public Allocation allocate(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("block count must be >= 0");
        }
        int free = freeBlocks();
        if (n > free) {
            return new Allocation.NoCapacity(free, n);
        }
        List<KvBlock> out = new ArrayList<>(n);
        List<BlockHash> evicted = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            KvBlock block = empty.pollFirst();
            if (block == null) {
                block = victim();
                cached.remove(block);
                evicted.add(evict(block));
            }
            block.refCount = 1;
            out.add(block);
        }
        if (!evicted.isEmpty()) {
            events.removed(evicted, Tier.G1);
            stats.evicted(Tier.G1, evicted.size());
        }
        stats.allocated(n);
        reportHeld();
        return new Allocation.Allocated(out);
    }

    /** The next cached block to evict: the first safe one near the front of the order, else the front. */
    private KvBlock victim() {
        KvBlock front = cached.peekFirst();
        if (!eager) {
            return front;
        }
        KvBlock candidate = front;
        for (int i = 0; i < SAFE_SCAN && candidate != null; i++, candidate = candidate.next) {
            if (candidate.isSafe()) {
                return candidate;
            }
        }
        return front;
    }

    private BlockHash evict(KvBlock block) {
        StoredBlock stored = block.stored;
        block.retireContents(); // no eager copy reads the page from here on
        evictionSink.evicted(new EvictedBlock(block.parent, stored, block.hits), page(block));
        byHash.remove(stored.hash());
        forget(block);
        return stored.hash();
    }

    private static void forget(KvBlock block) {
        block.stored = null;
        block.parent = null;
        block.hits = 0;
        block.lent = null;
    }

    /**
     * How many leading {@code hashes} G1 holds and how many of those are free (cached), changing nothing (no
     * reference, no access recorded, no statistics): for deciding whether a prompt fits before taking its
     * cached prefix with {@link #findCachedPrefix}.
     */
    public PrefixProbe probeCachedPrefix(BlockHash[] hashes) {
        Objects.requireNonNull(hashes, "hashes");
        int found = 0;
        int free = 0;
        for (; found < hashes.length; found++) {
            KvBlock block = byHash.get(Objects.requireNonNull(hashes[found], "hash"));
            if (block == null) {
                break;
            }
            if (block.refCount == 0) {
                free++;
            }
        }
        return new PrefixProbe(found, free);
    }

    /**
     * What {@link #probeCachedPrefix} found.
     *
     * @param blocks leading blocks held in G1
     * @param free   how many of them are free (counted in {@link #freeBlocks()} now, taken by a prefix hit)
     */
    public record PrefixProbe(int blocks, int free) {
    }

    /**
     * Finds the longest run of leading {@code hashes} held in G1 and takes a reference on each block
     * found (a cached block leaves the free lists in O(1)); the caller frees them like allocated ones.
     *
     * @param hashes a prompt's full-block chained hashes, in order
     * @return the blocks holding {@code hashes[0..k)}, for the largest such k (possibly empty)
     */
    public List<KvBlock> findCachedPrefix(BlockHash[] hashes) {
        Objects.requireNonNull(hashes, "hashes");
        List<KvBlock> found = new ArrayList<>();
        for (BlockHash hash : hashes) {
            KvBlock block = byHash.get(Objects.requireNonNull(hash, "hash"));
            if (block == null) {
                break;
            }
            if (block.refCount == 0) {
                cached.remove(block);
            }
            block.refCount++;
            block.hits++;
            policy.recordAccess(hash);
            found.add(block);
        }
        stats.prefixLookup((long) hashes.length * layout.blockSize());
        stats.prefixMatched(Tier.G1, (long) found.size() * layout.blockSize());
        return found;
    }

    /**
     * Marks an allocated block as full with the given hashes, making it findable by
     * {@link #findCachedPrefix} and recording {@code Stored} in G1. If another block already holds the
     * same hash, this one stays private (unhashed) and nothing is recorded.
     *
     * @param block  an allocated block of this pool without a hash
     * @param parent the chained hash of the block before it, or {@code null} for a sequence's first block
     * @param stored the block's chained and local hashes
     * @return whether the block is now the cached holder of {@code stored.hash()}
     */
    public boolean commit(KvBlock block, BlockHash parent, StoredBlock stored) {
        checkOwned(block);
        Objects.requireNonNull(stored, "stored");
        if (block.refCount == 0) {
            throw new IllegalStateException("cannot commit a free block");
        }
        if (block.stored != null) {
            throw new IllegalStateException("block hash is set once");
        }
        if (byHash.putIfAbsent(stored.hash(), block) != null) {
            return false;
        }
        block.stored = stored;
        block.parent = parent;
        policy.recordAccess(stored.hash());
        events.stored(parent, List.of(stored), Tier.G1);
        if (eager) {
            long queued = KvBlock.withState(block.copyState(), KvBlock.QUEUED);
            block.setCopyState(queued);
            block.lent = new CommittedBlock(block, queued, new EvictedBlock(parent, stored, 0), page(block));
            evictionSink.committed(block.lent);
        }
        reportHeld();
        return true;
    }

    /**
     * Drops one reference on each block, last block first, so that of a released sequence its tail
     * is evicted before its head. A block reaching 0 becomes cached if it has a hash (placed by the
     * {@link EvictionPolicy}), otherwise empty.
     */
    public void free(List<KvBlock> released) {
        Objects.requireNonNull(released, "released");
        for (int i = released.size() - 1; i >= 0; i--) {
            KvBlock block = released.get(i);
            checkOwned(block);
            if (block.refCount <= 0) {
                throw new IllegalStateException("block freed more often than allocated");
            }
            if (--block.refCount > 0) {
                continue;
            }
            if (block.stored == null) {
                empty.addLast(block);
                continue;
            }
            KvBlock victim = cached.peekFirst();
            if (victim == null || policy.admit(block.stored.hash(), victim.stored.hash())) {
                cached.addLast(block);
            } else {
                cached.addFirst(block);
            }
            if (block.lent != null && block.lent.isQueued()) {
                evictionSink.released(block.lent, block.hits);
            }
        }
        reportHeld();
    }

    /**
     * Forgets every cached block and records {@code Cleared}, if no block is in use.
     *
     * @return {@code false}, changing nothing, when some block still has a reference
     */
    public boolean reset() {
        if (freeBlocks() != blocks.length) {
            return false;
        }
        for (KvBlock block = cached.pollFirst(); block != null; block = cached.pollFirst()) {
            block.retireContents();
            forget(block);
            empty.addLast(block);
        }
        byHash.clear();
        events.cleared();
        reportHeld();
        return true;
    }

    /** All pages: {@code capacity × blockBytes} bytes, page {@code id} at {@code id × blockBytes}. */
    public MemorySegment memory() {
        return memory;
    }

    /** The page of {@code block}: {@link KvLayout#blockBytes()} bytes laid out as {@link KvLayout} says. */
    public MemorySegment page(KvBlock block) {
        checkOwned(block);
        return memory.asSlice(block.id() * layout.blockBytes(), layout.blockBytes());
    }

    /**
     * Byte offset in {@link #memory()} of token {@code slot}'s keys or values in {@code layer} of page
     * {@code blockId}: {@code blockId × blockBytes + layout.offsetInBlock(layer, part, slot)}.
     */
    public long offset(int blockId, int layer, KvPart part, int slot) {
        Objects.checkIndex(blockId, blocks.length);
        return blockId * layout.blockBytes() + layout.offsetInBlock(layer, part, slot);
    }

    /** Frees the off-heap memory; the pool is unusable afterwards. */
    @Override
    public void close() {
        arena.close();
    }

    private void checkOwned(KvBlock block) {
        Objects.requireNonNull(block, "block");
        if (block.id() >= blocks.length || blocks[block.id()] != block) {
            throw new IllegalArgumentException("block belongs to another pool");
        }
    }

    private void reportHeld() {
        stats.blocks(Tier.G1, (long) blocks.length - empty.size());
    }
}
