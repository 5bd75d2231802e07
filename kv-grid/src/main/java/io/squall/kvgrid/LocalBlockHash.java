package io.squall.kvgrid;

/**
 * The hash of one block's token ids alone, {@code XXH3-64(LE-u32 tokens, seed)}, independent of what
 * precedes the block. Kept a distinct type so it cannot be mixed up with a chained {@link BlockHash}.
 */
public record LocalBlockHash(long value) {

    @Override
    public String toString() {
        return Long.toUnsignedString(value, 16);
    }
}
