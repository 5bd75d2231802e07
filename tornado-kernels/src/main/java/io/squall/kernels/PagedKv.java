package io.squall.kernels;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Where one layer of one sequence's keys and values live in a paged KV pool. The pool is a run of
 * pages of {@code pageBytes} bytes; position {@code p} of the sequence lives in page
 * {@code blockTable[p / blockSize]} at slot {@code p % blockSize}. Within a page, this layer's key
 * plane starts at byte {@code keyOffset} and its value plane at {@code valueOffset}, both
 * little-endian F32. The value plane is {@code [slot][kvHeads·headDim]}: one token's values are
 * contiguous, as the weighted sum {@code Σ P·v} reads them. The key plane is transposed,
 * {@code [kvHeads·headDim][slot]}: one element of every slot of the page is contiguous, so a score
 * kernel loads a vector of positions per element and needs no horizontal reduction or copy.
 *
 * @param pages the pool's memory
 * @param pageBytes bytes per page
 * @param blockSize positions per page
 * @param keyOffset byte offset of this layer's key plane within a page
 * @param valueOffset byte offset of this layer's value plane within a page
 * @param blockTable the sequence's pages in position order; read, never modified
 */
public record PagedKv(MemorySegment pages, long pageBytes, int blockSize, long keyOffset, long valueOffset,
                      int[] blockTable) {

    public PagedKv {
        Objects.requireNonNull(pages, "pages");
        Objects.requireNonNull(blockTable, "blockTable");
        if (pageBytes <= 0 || blockSize <= 0 || keyOffset < 0 || valueOffset < 0) {
            throw new IllegalArgumentException("page geometry must be positive: pageBytes=" + pageBytes
                    + " blockSize=" + blockSize + " keyOffset=" + keyOffset + " valueOffset=" + valueOffset);
        }
    }

    /** Byte offset in {@link #pages()} of element {@code element} (of {@code kvHeads·headDim}) of the key at {@code position}. */
    public long keyElement(int position, int element) {
        return blockTable[position / blockSize] * pageBytes + keyOffset
                + ((long) element * blockSize + position % blockSize) * Float.BYTES;
    }

    /** Byte offset in {@link #pages()} of the value row at {@code position}, given rows of {@code rowBytes}. */
    public long valueRow(int position, long rowBytes) {
        return blockTable[position / blockSize] * pageBytes + valueOffset + (position % blockSize) * rowBytes;
    }
}
