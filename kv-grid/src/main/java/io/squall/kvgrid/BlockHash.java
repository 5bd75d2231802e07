package io.squall.kvgrid;

/**
 * The chained hash of a full KV block: it covers the block's tokens and, through its parent, every
 * token before them, so equal block hashes mean equal prefixes. Dynamo calls it the sequence (or
 * external) block hash: {@code seq[0] = local[0]}, {@code seq[i] = XXH3-64(LE(seq[i-1]) ‖ LE(local[i]), seed)}.
 */
public record BlockHash(long value) {

    @Override
    public String toString() {
        return Long.toUnsignedString(value, 16);
    }
}
