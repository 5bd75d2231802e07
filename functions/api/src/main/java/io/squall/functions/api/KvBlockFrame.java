package io.squall.functions.api;

import io.squall.kvgrid.BlockHash;

import java.util.Objects;

/**
 * One KV block on the {@code kv.push} and {@code kv.fetch} routes.
 *
 * @param blockHash the block's chained hash
 * @param index the block's position in the sequence, in blocks from 0
 * @param payload the block's K and V bytes in the pool's layout
 * @param crc32c CRC32C of {@code payload}, checked by the receiver
 */
public record KvBlockFrame(BlockHash blockHash, int index, byte[] payload, int crc32c) {

    public KvBlockFrame {
        Objects.requireNonNull(blockHash, "blockHash");
        Objects.requireNonNull(payload, "payload");
        if (index < 0) {
            throw new IllegalArgumentException("index must not be negative");
        }
    }
}
