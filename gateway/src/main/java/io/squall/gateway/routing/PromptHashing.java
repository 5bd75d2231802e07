package io.squall.gateway.routing;

import io.squall.functions.discovery.ServedModel;
import io.squall.kvgrid.hash.BlockChain;
import io.squall.kvgrid.hash.BlockHasher;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Hashes prompts as the workers of a model hash their blocks: with the block size and salt they advertise
 * ({@link ServedModel}), so a router's hashes equal the ones in the workers' KV events. Hashers are made once per
 * (block size, salt). Thread-safe.
 */
final class PromptHashing {

    /** What names a worker's blocks: equal keys hash equal prompts to equal block hashes. */
    private record Key(int blockSize, String salt) {
    }

    private final Map<Key, BlockHasher> hashers = new ConcurrentHashMap<>();

    /** The chain of {@code tokens}' full blocks as workers of {@code model} hash them. */
    BlockChain chain(ServedModel model, int[] tokens) {
        return hashers.computeIfAbsent(new Key(model.blockSize(), model.hashSalt()),
                key -> BlockHasher.salted(key.blockSize(), key.salt())).hash(tokens);
    }
}
