package io.squall.kvgrid.pool;

import java.util.Objects;

/**
 * The shape of one KV page (block) and where each value sits in it.
 *
 * <p>A page holds {@code blockSize} tokens for every layer: for each layer a key plane, then a value
 * plane, each {@link #planeBytes()} long. The value plane is {@code [slot][kvHead][headDim]}: one
 * token's values ({@link #slotBytes()}) are contiguous, as the attention's weighted sum reads them.
 * The key plane is transposed, {@code [kvHead][headDim][slot]}: one element of all
 * {@code blockSize} tokens is contiguous, so a score kernel loads a vector of positions per element
 * and needs neither a horizontal reduction nor a copy. Element {@code e} of token {@code slot}
 * sits at {@link #offsetInBlock} {@code + e × }{@link #elementStride}.
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
     * in {@code layer}; element {@code e} (head {@code e / headDim}) follows at {@code + e × elementStride(part)}.
     *
     * @param layer 0 ≤ layer &lt; layers
     * @param part  keys or values
     * @param slot  token position inside the block, 0 ≤ slot &lt; blockSize
     */
    public long offsetInBlock(int layer, KvPart part, int slot) {
        Objects.checkIndex(layer, layers);
        Objects.requireNonNull(part, "part");
        Objects.checkIndex(slot, blockSize);
        long slotOffset = part == KvPart.K ? slot * (long) elementType.bytes() : slot * slotBytes();
        return layer * layerBytes() + part.ordinal() * planeBytes() + slotOffset;
    }

    /** Bytes between consecutive elements of one token's keys ({@code blockSize × element}) or values ({@code element}). */
    public long elementStride(KvPart part) {
        Objects.requireNonNull(part, "part");
        return part == KvPart.K ? (long) blockSize * elementType.bytes() : elementType.bytes();
    }
}
