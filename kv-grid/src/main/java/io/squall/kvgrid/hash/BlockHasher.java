package io.squall.kvgrid.hash;

import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.LocalBlockHash;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import net.openhft.hashing.LongHashFunction;

/**
 * Hashes full blocks of token ids the way Dynamo's kv-router does, so Squall's hashes equal the ones
 * in Dynamo/vLLM-style event streams:
 *
 * <ul>
 *   <li>local hash of a block: {@code XXH3-64(LE-u32(t[0]) ‖ … ‖ LE-u32(t[B-1]), seed)};
 *   <li>sequence hash: {@code seq[0] = local[0]},
 *       {@code seq[i] = XXH3-64(LE64(seq[i-1]) ‖ LE64(local[i]), 1337)}.
 * </ul>
 *
 * The seed is {@value #SEED}. With a salt (a LoRA adapter name or a cache namespace) the local-hash
 * seed becomes {@code 1337 + XXH3-64(UTF-8(salt), seed 0)} (wrapping 64-bit addition), Dynamo's rule
 * for {@code lora_name}; an empty salt means no salt. The chaining step always uses seed 1337, so
 * the salt reaches every sequence hash through the local hashes. Only full blocks are hashed: a
 * trailing partial block has no hash.
 *
 * <p>Token ids are hashed straight from the {@code int[]} holding them, without copying: the library
 * reads the array's memory in native byte order, which equals little-endian u32 bytes on the
 * little-endian platforms Squall runs on (x86-64, AArch64); the constructor refuses others.
 *
 * <p>Immutable and thread-safe.
 */
public final class BlockHasher {

    /** Tokens per block unless configured otherwise. */
    public static final int DEFAULT_BLOCK_SIZE = 16;

    /** Dynamo's XXH3 seed for local hashes without a salt and for every chaining step. */
    public static final long SEED = 1337L;

    private static final LongHashFunction CHAIN_HASH = LongHashFunction.xx3(SEED);

    private final int blockSize;
    private final LongHashFunction localHash;

    private BlockHasher(int blockSize, long localSeed) {
        if (blockSize <= 0) {
            throw new IllegalArgumentException("block size must be positive (tokens per block)");
        }
        if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
            throw new UnsupportedOperationException("block hashing reads token arrays in native byte order and needs a little-endian platform");
        }
        this.blockSize = blockSize;
        this.localHash = LongHashFunction.xx3(localSeed);
    }

    /** A hasher without salt for blocks of {@code blockSize} tokens. */
    public static BlockHasher of(int blockSize) {
        return new BlockHasher(blockSize, SEED);
    }

    /**
     * A hasher whose local hashes are salted with {@code salt} (LoRA adapter name or cache
     * namespace); an empty salt is the same as {@link #of(int)}.
     */
    public static BlockHasher salted(int blockSize, String salt) {
        Objects.requireNonNull(salt, "salt");
        return new BlockHasher(blockSize, saltedSeed(salt));
    }

    /** The local-hash seed for {@code salt}: {@code 1337 + XXH3-64(UTF-8(salt))}, or 1337 when empty. */
    static long saltedSeed(String salt) {
        if (salt.isEmpty()) {
            return SEED;
        }
        return SEED + LongHashFunction.xx3().hashBytes(salt.getBytes(StandardCharsets.UTF_8));
    }

    /** Tokens per block. */
    public int blockSize() {
        return blockSize;
    }

    /** A new, empty chain to which a sequence's tokens are appended as they arrive. */
    public BlockChain newChain() {
        return new BlockChain(this);
    }

    /** The chain of every full block of {@code tokens}; a trailing partial block stays pending in it. */
    public BlockChain hash(int[] tokens) {
        BlockChain chain = newChain();
        chain.append(tokens);
        return chain;
    }

    /** The local hash of the block of {@link #blockSize()} tokens starting at {@code tokens[offset]}. */
    public LocalBlockHash localHash(int[] tokens, int offset) {
        Objects.requireNonNull(tokens, "tokens");
        if (offset < 0 || offset > tokens.length - blockSize) {
            throw new IndexOutOfBoundsException("a full block must start at offset " + offset + " of " + tokens.length + " tokens");
        }
        return new LocalBlockHash(local(tokens, offset));
    }

    /** The sequence hash of a block given its parent's sequence hash ({@code null} for a first block). */
    public BlockHash sequenceHash(BlockHash parent, LocalBlockHash local) {
        Objects.requireNonNull(local, "local");
        return new BlockHash(parent == null ? local.value() : chain(parent.value(), local.value(), new long[2]));
    }

    /** Local hash of one full block; the caller has checked the bounds. */
    long local(int[] tokens, int offset) {
        return localHash.hashInts(tokens, offset, blockSize);
    }

    /** {@code XXH3-64(LE64(parent) ‖ LE64(local), 1337)}, using {@code pair} (two longs) as scratch. */
    static long chain(long parent, long local, long[] pair) {
        pair[0] = parent;
        pair[1] = local;
        return CHAIN_HASH.hashLongs(pair);
    }
}
