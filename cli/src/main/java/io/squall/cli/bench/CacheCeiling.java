package io.squall.cli.bench;

import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.hash.BlockHasher;

import java.util.HashSet;
import java.util.Set;

/**
 * The prompt-cache hits an oracle would get: unlimited cache and perfect placement, so every full block a prompt
 * shares (as a chained prefix) with an earlier prompt is a hit. Prompts are offered in the order they were sent.
 * As the engine does, the last prompt token is never served from cache, and only full blocks count. Blocks of
 * generated tokens are not counted, so a later prompt that repeats a reply token for token can beat this ceiling.
 * Not thread-safe.
 */
final class CacheCeiling {

    private final BlockHasher hasher;
    private final int blockSize;
    private final Set<Long> seen = new HashSet<>();

    /** @param blockSize tokens per KV block, as the workers hash them */
    CacheCeiling(int blockSize) {
        this.hasher = BlockHasher.of(blockSize);
        this.blockSize = blockSize;
    }

    /** The tokens of {@code prompt} the oracle serves from cache; remembers the prompt's blocks. */
    int offer(int[] prompt) {
        BlockHash[] blocks = hasher.hash(prompt).hashes();
        int reusable = Math.max(0, (prompt.length - 1) / blockSize);
        int hits = 0;
        while (hits < reusable && seen.contains(blocks[hits].value())) {
            hits++;
        }
        for (BlockHash block : blocks) {
            seen.add(block.value());
        }
        return hits * blockSize;
    }
}
