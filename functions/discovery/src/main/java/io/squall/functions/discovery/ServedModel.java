package io.squall.functions.discovery;

import io.squall.kvgrid.hash.BlockHasher;

import java.util.Objects;

/**
 * What a worker serves, as it advertises it in discovery: the one source of the values that gateways and
 * routers must agree on with the worker. A gateway routes a request only to workers of the model it names,
 * checks prompts against their context length, and hashes prompts with their block size and salt, so its
 * block hashes equal the ones in the workers' KV events.
 *
 * @param name the model id clients send (OpenAI's {@code model}), e.g. {@code stories260K}
 * @param contextLength the longest sequence the worker runs, in tokens (prompt plus generated tokens): the
 *     smaller of the model's context, the worker's {@code --context} and what its KV pool can hold
 * @param blockSize tokens per KV block
 * @param hashSalt the salt of the worker's block hashes ({@link BlockHasher#salted}); workers of one model
 *     share it and workers of different models never do, so equal hashes mean equal prefixes of one model
 */
public record ServedModel(String name, int contextLength, int blockSize, String hashSalt) {

    public ServedModel {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(hashSalt, "hashSalt");
        if (name.isBlank()) {
            throw new IllegalArgumentException("a served model needs a name");
        }
        if (contextLength < 2 || blockSize < 1) {
            throw new IllegalArgumentException("context length must be at least 2 tokens and block size at least 1, got "
                    + contextLength + " and " + blockSize);
        }
    }

    /** A model salted as {@link #saltOf} says. */
    public static ServedModel of(String name, int contextLength, int blockSize) {
        return new ServedModel(name, contextLength, blockSize, saltOf(name));
    }

    /**
     * The hash salt of the model called {@code name}: the name itself (DESIGN §5: block hashes are seeded per
     * model), so workers that serve one model agree without being told and two models never share a block.
     */
    public static String saltOf(String name) {
        return Objects.requireNonNull(name, "name");
    }

    /**
     * Whether a block of {@code other}'s means what an equal block of this model's does: the same model, block
     * size and salt (their context lengths may differ), so KV blocks can move between the two workers.
     */
    public boolean sharesKvWith(ServedModel other) {
        return name.equals(other.name) && blockSize == other.blockSize && hashSalt.equals(other.hashSalt);
    }

    /** The hasher whose block hashes equal this worker's: its block size and salt. */
    public BlockHasher blockHasher() {
        return BlockHasher.salted(blockSize, hashSalt);
    }

    /** KV blocks a sequence of {@code tokens} tokens occupies. */
    public int blocksFor(int tokens) {
        return (tokens + blockSize - 1) / blockSize;
    }
}
