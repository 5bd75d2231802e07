package io.squall.functions.engine.model;

import io.squall.kernels.PagedKv;
import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.KvEvent.StoredBlock;
import io.squall.kvgrid.hash.BlockChain;
import io.squall.kvgrid.hash.BlockHasher;
import io.squall.kvgrid.pool.Allocation;
import io.squall.kvgrid.pool.BlockPool;
import io.squall.kvgrid.pool.KvBlock;
import io.squall.kvgrid.pool.KvLayout;
import io.squall.kvgrid.pool.KvPart;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A {@link KvCache} whose keys and values live in pages of a shared {@link BlockPool}, reached through
 * the sequence's block table. Full blocks are hashed as they fill and committed to the pool, so a later
 * sequence with the same prefix reuses them ({@link #reusePrefix}) instead of recomputing them.
 *
 * <p>Owned by the pool's owner thread (the scheduler): every method, including the forward pass that
 * reads and writes the pages, runs there.
 */
public final class PagedKvCache extends KvCache {

    private static final ValueLayout.OfFloat LE_FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final BlockPool pool;
    private final KvLayout layout;
    private final BlockChain chain;
    private final int maxPositions;
    private final List<KvBlock> blocks = new ArrayList<>();
    private int[] table = new int[8];
    /** Tokens fed to {@link #chain}; may run ahead of {@link #length()} for a prompt's known full blocks. */
    private int hashedTokens;
    /** Leading blocks committed to the pool (or found there), in blocks. */
    private int committedBlocks;

    /**
     * An empty cache on {@code pool}; the model's {@code kvHeads·headDim} and layer count must match the
     * pool's layout, and {@code hasher}'s block size its block size.
     */
    public PagedKvCache(BlockPool pool, BlockHasher hasher, int maxPositions) {
        this.pool = pool;
        this.layout = pool.layout();
        if (hasher.blockSize() != layout.blockSize()) {
            throw new IllegalArgumentException("hasher blocks of " + hasher.blockSize() + " tokens differ from the pool's "
                    + layout.blockSize());
        }
        this.chain = hasher.newChain();
        this.maxPositions = maxPositions;
    }

    @Override
    public int maxPositions() {
        return maxPositions;
    }

    /** Pages held, in blocks. */
    public int blockCount() {
        return blocks.size();
    }

    /**
     * Reuses the longest cached prefix of {@code tokens[0 .. count)} held in the pool, leaving at least
     * the last token to compute (its logits are needed). Call once, on an empty cache.
     *
     * @return the chained hashes and local hashes of every block that could be reused (for onboarding
     *         from lower tiers), of which the first {@code length() / blockSize} are now in this cache
     */
    public List<StoredBlock> reusePrefix(int[] tokens, int count) {
        if (length() != 0 || !blocks.isEmpty()) {
            throw new IllegalStateException("prefix reuse needs an empty cache");
        }
        int reusable = (count - 1) / layout.blockSize();
        chain.append(tokens, 0, reusable * layout.blockSize());
        hashedTokens = reusable * layout.blockSize();
        List<KvBlock> found = pool.findCachedPrefix(chain.hashes());
        addBlocks(found);
        committedBlocks = found.size();
        advance(found.size() * layout.blockSize());
        List<StoredBlock> stored = new ArrayList<>(reusable);
        for (int i = 0; i < reusable; i++) {
            stored.add(new StoredBlock(chain.hash(i), chain.localHash(i)));
        }
        return stored;
    }

    /**
     * Appends blocks onboarded from a lower tier right after the reused prefix; they are already
     * committed in the pool and continue this sequence's prefix.
     */
    public void appendOnboarded(List<KvBlock> onboarded) {
        if (committedBlocks != blocks.size() || length() != blocks.size() * layout.blockSize()) {
            throw new IllegalStateException("onboarded blocks must follow the reused prefix directly");
        }
        addBlocks(onboarded);
        committedBlocks += onboarded.size();
        advance(onboarded.size() * layout.blockSize());
    }

    /**
     * Declares that the next {@code positions} positions' keys and values were written into pages this cache
     * already holds by someone else (a prefill worker), and commits the blocks they fill. They must
     * cover whole blocks of the prompt whose hashes {@link #reusePrefix} computed.
     *
     * @param tokens the prompt's tokens, for hashing
     */
    public void markComputed(int positions, int[] tokens) {
        int blockSize = layout.blockSize();
        if (length() % blockSize != 0 || positions % blockSize != 0 || length() + positions > hashedTokens
                || length() + positions > blocks.size() * blockSize) {
            throw new IllegalArgumentException("remotely computed positions must be whole, hashed, held blocks");
        }
        advance(positions);
        commitFullBlocks(tokens);
    }

    /** Leading full blocks whose KV this cache holds (reused, onboarded or computed), in blocks. */
    public int committedBlocks() {
        return committedBlocks;
    }

    /** The pool page ids of blocks {@code from .. from + count - 1} of this cache. */
    public int[] blockIds(int from, int count) {
        Objects.checkFromIndexSize(from, count, blocks.size());
        return Arrays.copyOfRange(table, from, from + count);
    }

    /** The chained hash of prompt block {@code index}, once {@link #reusePrefix} or a commit hashed it. */
    public BlockHash blockHash(int index) {
        return chain.hash(index);
    }

    /** The page of block {@code index}; valid while this cache holds it. */
    public MemorySegment page(int index) {
        return pool.page(blocks.get(index));
    }

    /**
     * Makes sure pages cover {@code positions} positions, allocating from the pool.
     *
     * @return false when the pool has too few free blocks (nothing allocated then)
     */
    public boolean ensureCapacity(int positions) {
        int needed = (positions + layout.blockSize() - 1) / layout.blockSize() - blocks.size();
        if (needed <= 0) {
            return true;
        }
        if (pool.allocate(needed) instanceof Allocation.Allocated(List<KvBlock> allocated)) {
            addBlocks(allocated);
            return true;
        }
        return false;
    }

    /**
     * Hashes and commits the blocks that the last forward passes filled, making them reusable;
     * {@code tokens} holds at least {@link #length()} tokens of this sequence.
     */
    public void commitFullBlocks(int[] tokens) {
        if (length() > hashedTokens) {
            chain.append(tokens, hashedTokens, length() - hashedTokens);
            hashedTokens = length();
        }
        int full = Math.min(chain.size(), length() / layout.blockSize());
        for (int i = committedBlocks; i < full; i++) {
            BlockHash parent = i == 0 ? null : chain.hash(i - 1);
            pool.commit(blocks.get(i), parent, new StoredBlock(chain.hash(i), chain.localHash(i)));
        }
        committedBlocks = Math.max(committedBlocks, full);
    }

    /** Returns every page to the pool (committed ones stay cached for reuse); the cache is unusable after. */
    public void release() {
        pool.free(blocks);
        blocks.clear();
    }

    private void addBlocks(List<KvBlock> added) {
        int size = blocks.size() + added.size();
        if (table.length < size) {
            table = Arrays.copyOf(table, Math.max(size, 2 * table.length));
        }
        for (KvBlock block : added) {
            table[blocks.size()] = block.id();
            blocks.add(block);
        }
    }

    @Override
    void reserve(int positions) {
        if (positions > maxPositions) {
            throw new IllegalArgumentException("sequence of " + positions + " tokens exceeds the context of "
                    + maxPositions + " tokens");
        }
        if (!ensureCapacity(positions)) {
            throw new IllegalStateException("the KV pool has no free blocks for " + positions + " positions");
        }
    }

    @Override
    void store(int layer, float[] keys, int keysOffset, float[] values, int valuesOffset, int count) {
        MemorySegment memory = pool.memory();
        int rowFloats = layout.kvHeads() * layout.headDim();
        long keyStride = layout.elementStride(KvPart.K);
        for (int j = 0; j < count; j++) {
            int position = length() + j;
            int block = table[position / layout.blockSize()];
            int slot = position % layout.blockSize();
            long key = pool.offset(block, layer, KvPart.K, slot);
            int from = keysOffset + j * rowFloats;
            for (int e = 0; e < rowFloats; e++, key += keyStride) { // the key plane is element-major
                memory.set(LE_FLOAT, key, keys[from + e]);
            }
            MemorySegment.copy(values, valuesOffset + j * rowFloats, memory, LE_FLOAT,
                    pool.offset(block, layer, KvPart.V, slot), rowFloats);
        }
    }

    @Override
    PagedKv layer(int layer) {
        return new PagedKv(pool.memory(), layout.blockBytes(), layout.blockSize(),
                layout.offsetInBlock(layer, KvPart.K, 0), layout.offsetInBlock(layer, KvPart.V, 0), table);
    }
}
