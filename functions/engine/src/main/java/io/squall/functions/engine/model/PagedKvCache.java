package io.squall.functions.engine.model;

import io.squall.kernels.PagedKv;
import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.KvEvent.StoredBlock;
import io.squall.kvgrid.hash.BlockChain;
import io.squall.kvgrid.hash.BlockHasher;
import io.squall.kvgrid.offload.OnboardTransfer;
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
    /** The transfer still streaming blocks this cache counts as computed, or {@code null}. */
    private OnboardTransfer gate;

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
     * the last token to compute (its logits are needed): {@link #hashPrompt} then {@link #takeCachedPrefix}.
     * Call once, on an empty cache.
     *
     * @return the chained hashes and local hashes of every block that could be reused (for onboarding
     *         from lower tiers), of which the first {@code length() / blockSize} are now in this cache
     */
    public List<StoredBlock> reusePrefix(int[] tokens, int count) {
        List<StoredBlock> stored = hashPrompt(tokens, count);
        takeCachedPrefix();
        return stored;
    }

    /**
     * Hashes the full blocks of {@code tokens[0 .. count)} that a prefix may cover (every block before the
     * one holding the last token, whose logits are needed), without touching the pool. Call once, on an
     * empty cache.
     *
     * @return the chained and local hash of each such block, in order
     */
    public List<StoredBlock> hashPrompt(int[] tokens, int count) {
        if (length() != 0 || !blocks.isEmpty() || hashedTokens != 0) {
            throw new IllegalStateException("prefix reuse needs an empty cache");
        }
        int reusable = (count - 1) / layout.blockSize();
        chain.append(tokens, 0, reusable * layout.blockSize());
        hashedTokens = reusable * layout.blockSize();
        List<StoredBlock> stored = new ArrayList<>(reusable);
        for (int i = 0; i < reusable; i++) {
            stored.add(new StoredBlock(chain.hash(i), chain.localHash(i)));
        }
        return stored;
    }

    /** What the pool holds of the hashed prompt, changing nothing (see {@link BlockPool#probeCachedPrefix}). */
    public BlockPool.PrefixProbe probeCachedPrefix() {
        return pool.probeCachedPrefix(chain.hashes());
    }

    /**
     * Takes the longest prefix of the hashed prompt that the pool holds into this (empty) cache.
     *
     * @return the blocks taken
     */
    public int takeCachedPrefix() {
        if (!blocks.isEmpty()) {
            throw new IllegalStateException("the cached prefix is taken once, into an empty cache");
        }
        List<KvBlock> found = pool.findCachedPrefix(chain.hashes());
        addBlocks(found);
        committedBlocks = found.size();
        advance(found.size() * layout.blockSize());
        return found.size();
    }

    /**
     * Counts the next {@code count} blocks, which this cache already holds, as computed while {@code transfer}
     * is still filling them from a lower tier a layer at a time: the tokens after them can be computed now,
     * each layer's attention waiting for that layer ({@link OnboardTransfer#awaitLayer}). They are committed
     * only by {@link #commitFullBlocks} after {@link #endStreaming}, once the transfer is done.
     */
    public void startStreaming(int count, OnboardTransfer transfer) {
        int blockSize = layout.blockSize();
        if (gate != null || committedBlocks * blockSize != length() || length() + count * blockSize > hashedTokens
                || length() + count * blockSize > blocks.size() * blockSize) {
            throw new IllegalStateException("streamed blocks must follow the committed prefix and be hashed and held");
        }
        gate = Objects.requireNonNull(transfer, "transfer");
        advance(count * blockSize);
    }

    /** The transfer filling this cache's streamed blocks, or {@code null}. */
    public OnboardTransfer streaming() {
        return gate;
    }

    /** Forgets the streaming transfer once it is done (its blocks are then committed like computed ones). */
    public void endStreaming() {
        gate = null;
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

    /** The pages of blocks {@code from .. from + count - 1}; valid while this cache holds them. */
    public List<MemorySegment> pages(int from, int count) {
        Objects.checkFromIndexSize(from, count, blocks.size());
        List<MemorySegment> pages = new ArrayList<>(count);
        for (int i = from; i < from + count; i++) {
            pages.add(pool.page(blocks.get(i)));
        }
        return pages;
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
     * Hashes and commits the blocks that the last forward passes filled (and onboarded ones), making them
     * reusable; does nothing while blocks are streaming in ({@link #startStreaming});
     * {@code tokens} holds at least {@link #length()} tokens of this sequence.
     */
    public void commitFullBlocks(int[] tokens) {
        if (gate != null) {
            return; // blocks still streaming in must not become findable before they are whole
        }
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

    /** Waits, if blocks are still streaming in, until {@code layer} of them is in place. */
    @Override
    PagedKv layer(int layer) {
        if (gate != null) {
            gate.awaitLayer(layer);
        }
        return new PagedKv(pool.memory(), layout.blockBytes(), layout.blockSize(),
                layout.offsetInBlock(layer, KvPart.K, 0), layout.offsetInBlock(layer, KvPart.V, 0), table);
    }
}
