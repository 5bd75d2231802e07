package io.squall.kvgrid.hash;

import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.LocalBlockHash;
import java.util.Arrays;
import java.util.Objects;

/**
 * The block hashes of one growing token sequence. Tokens are appended as they arrive (the prompt,
 * then generated tokens); each time a block of {@link BlockHasher#blockSize()} tokens fills up its
 * local and sequence hashes are computed, chained to the previous block. Tokens of a block that is
 * not yet full wait in a small buffer and have no hash.
 *
 * <p>Hashing allocates nothing per block: full blocks are hashed straight from the caller's array,
 * and the hash arrays grow geometrically. Not thread-safe: one sequence, one owner.
 */
public final class BlockChain {

    private final BlockHasher hasher;
    private final int[] pending;
    private final long[] pair = new long[2];
    private int pendingCount;
    private long[] sequence = new long[8];
    private long[] local = new long[8];
    private int size;

    BlockChain(BlockHasher hasher) {
        this.hasher = hasher;
        this.pending = new int[hasher.blockSize()];
    }

    /** Appends every token of {@code tokens}; returns how many blocks became full. */
    public int append(int[] tokens) {
        Objects.requireNonNull(tokens, "tokens");
        return append(tokens, 0, tokens.length);
    }

    /** Appends {@code tokens[offset .. offset+length)}; returns how many blocks became full. */
    public int append(int[] tokens, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, Objects.requireNonNull(tokens, "tokens").length);
        int blockSize = pending.length;
        int before = size;
        int next = offset;
        int end = offset + length;
        if (pendingCount > 0) {
            int take = Math.min(blockSize - pendingCount, end - next);
            System.arraycopy(tokens, next, pending, pendingCount, take);
            pendingCount += take;
            next += take;
            if (pendingCount == blockSize) {
                push(hasher.local(pending, 0));
                pendingCount = 0;
            }
        }
        ensureCapacity(size + (end - next) / blockSize);
        for (; end - next >= blockSize; next += blockSize) {
            push(hasher.local(tokens, next));
        }
        System.arraycopy(tokens, next, pending, pendingCount, end - next);
        pendingCount += end - next;
        return size - before;
    }

    /** Number of full blocks hashed so far. */
    public int size() {
        return size;
    }

    /** Tokens appended after the last full block (0 ≤ value < block size). */
    public int pendingTokens() {
        return pendingCount;
    }

    /** The sequence hash of block {@code index} (0-based, in blocks). */
    public BlockHash hash(int index) {
        return new BlockHash(sequence[Objects.checkIndex(index, size)]);
    }

    /** The local hash of block {@code index} (0-based, in blocks). */
    public LocalBlockHash localHash(int index) {
        return new LocalBlockHash(local[Objects.checkIndex(index, size)]);
    }

    /** The sequence hashes of every full block, first block first: the key of a radix-index lookup. */
    public BlockHash[] hashes() {
        BlockHash[] out = new BlockHash[size];
        for (int i = 0; i < size; i++) {
            out[i] = new BlockHash(sequence[i]);
        }
        return out;
    }

    private void push(long localHash) {
        ensureCapacity(size + 1);
        local[size] = localHash;
        sequence[size] = size == 0 ? localHash : BlockHasher.chain(sequence[size - 1], localHash, pair);
        size++;
    }

    private void ensureCapacity(int blocks) {
        if (blocks > sequence.length) {
            int capacity = Math.max(blocks, sequence.length * 2);
            sequence = Arrays.copyOf(sequence, capacity);
            local = Arrays.copyOf(local, capacity);
        }
    }
}
