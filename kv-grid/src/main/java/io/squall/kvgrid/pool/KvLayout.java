package io.squall.kvgrid.pool;

import java.util.Objects;

/**
 * The shape of one KV page (block) and where each value sits in it.
 *
 * <p>A page holds {@code blockSize} tokens for every layer, laid out as
 * {@code [layer][K|V][slot][kvHead][headDim]}: for each layer the keys of all {@code blockSize}
 * token slots, then their values; within one slot the heads follow each other, each
 * {@code headDim} contiguous elements. So one head vector of one token is contiguous, one token's
 * keys for a layer ({@link #slotBytes()}) are contiguous, and one layer's keys for the whole block
 * ({@link #planeBytes()}) are contiguous — what a paged attention kernel walking a block table needs.
 *
 * <p>All sizes and offsets are in bytes; {@code blockSize} is in tokens. Immutable.
 *
 * @param layers      transformer layers, &gt; 0
 * @param kvHeads     key/value heads per layer, &gt; 0
 * @param headDim     elements per head, &gt; 0
 * @param blockSize   tokens per block, &gt; 0
 * @param elementType the stored element type
 */
public record KvLayout(int layers, int kvHeads, int headDim, int blockSize, KvElementType elementType) {

    public KvLayout {
        if (layers <= 0) {
            throw new IllegalArgumentException("layers must be > 0");
        }
        if (kvHeads <= 0) {
            throw new IllegalArgumentException("kvHeads must be > 0");
        }
        if (headDim <= 0) {
            throw new IllegalArgumentException("headDim must be > 0");
        }
        if (blockSize <= 0) {
            throw new IllegalArgumentException("blockSize must be > 0");
        }
        Objects.requireNonNull(elementType, "elementType");
    }

    /** Bytes of one token's keys (or values) for one layer: {@code kvHeads × headDim × element}. */
    public long slotBytes() {
        return (long) kvHeads * headDim * elementType.bytes();
    }

    /** Bytes of one layer's keys (or values) for the whole block: {@code blockSize × slotBytes}. */
    public long planeBytes() {
        return slotBytes() * blockSize;
    }

    /** Bytes of one layer's keys and values: {@code 2 × planeBytes}. */
    public long layerBytes() {
        return 2 * planeBytes();
    }

    /** Bytes of one page: {@code layers × layerBytes}. */
    public long blockBytes() {
        return layerBytes() * layers;
    }

    /**
     * Offset, from the start of a page, of the first element of token {@code slot}'s keys or values
     * in {@code layer}; head {@code h} follows at {@code + h × headDim × element}.
     *
     * @param layer 0 ≤ layer &lt; layers
     * @param part  keys or values
     * @param slot  token position inside the block, 0 ≤ slot &lt; blockSize
     */
    public long offsetInBlock(int layer, KvPart part, int slot) {
        Objects.checkIndex(layer, layers);
        Objects.requireNonNull(part, "part");
        Objects.checkIndex(slot, blockSize);
        return layer * layerBytes() + part.ordinal() * planeBytes() + slot * slotBytes();
    }
}
