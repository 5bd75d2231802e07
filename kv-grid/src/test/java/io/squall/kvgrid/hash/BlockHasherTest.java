package io.squall.kvgrid.hash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.LocalBlockHash;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import net.openhft.hashing.LongHashFunction;
import org.junit.jupiter.api.Test;

class BlockHasherTest {

    /** Expected values are recomputed here from explicitly built little-endian byte strings. */
    private static long xxh3(long seed, byte[] bytes) {
        return LongHashFunction.xx3(seed).hashBytes(bytes);
    }

    private static byte[] leU32(int[] tokens, int from, int count) {
        ByteBuffer buffer = ByteBuffer.allocate(4 * count).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = from; i < from + count; i++) {
            buffer.putInt(tokens[i]);
        }
        return buffer.array();
    }

    private static byte[] le64Pair(long parent, long local) {
        return ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putLong(parent).putLong(local).array();
    }

    @Test
    void libraryXxh3MatchesDynamosPinnedVector() {
        // Dynamo's kv-router tests pin compute_block_hash(b"test data") (XXH3-64, seed 1337).
        assertThat(xxh3(1337, "test data".getBytes(StandardCharsets.US_ASCII)))
                .isEqualTo(Long.parseUnsignedLong("13226331709069118873"));
    }

    @Test
    void localHashIsXxh3OverLittleEndianU32Tokens() {
        int[] tokens = new int[16];
        for (int i = 0; i < tokens.length; i++) {
            tokens[i] = i * 0x01020304 + (i % 3 == 0 ? 0x80000000 : 0); // high bit set: u32, not i32 sign games
        }
        BlockHasher hasher = BlockHasher.of(16);

        assertThat(hasher.localHash(tokens, 0).value()).isEqualTo(xxh3(1337, leU32(tokens, 0, 16)));
    }

    @Test
    void sequenceHashChainsParentAndLocalAsLittleEndianLongs() {
        Random random = seeded();
        int blockSize = 4;
        int[] tokens = random.ints(3 * blockSize, 0, 150_000).toArray();
        BlockHasher hasher = BlockHasher.of(blockSize);

        BlockChain chain = hasher.hash(tokens);

        long l0 = xxh3(1337, leU32(tokens, 0, blockSize));
        long l1 = xxh3(1337, leU32(tokens, blockSize, blockSize));
        long l2 = xxh3(1337, leU32(tokens, 2 * blockSize, blockSize));
        long s1 = xxh3(1337, le64Pair(l0, l1));
        long s2 = xxh3(1337, le64Pair(s1, l2));
        assertThat(chain.size()).isEqualTo(3);
        assertThat(chain.localHash(0).value()).isEqualTo(l0);
        assertThat(chain.localHash(2).value()).isEqualTo(l2);
        assertThat(chain.hashes()).containsExactly(new BlockHash(l0), new BlockHash(s1), new BlockHash(s2));
        assertThat(hasher.sequenceHash(new BlockHash(s1), new LocalBlockHash(l2))).isEqualTo(new BlockHash(s2));
        assertThat(hasher.sequenceHash(null, new LocalBlockHash(l0))).isEqualTo(new BlockHash(l0));
    }

    @Test
    void partialLastBlockHasNoHash() {
        BlockHasher hasher = BlockHasher.of(16);

        BlockChain chain = hasher.hash(new int[2 * 16 + 15]);

        assertThat(chain.size()).isEqualTo(2);
        assertThat(chain.pendingTokens()).isEqualTo(15);
        assertThat(hasher.hash(new int[15]).size()).isZero();
    }

    @Test
    void appendingInPiecesEqualsHashingAtOnce() {
        Random random = seeded();
        int[] tokens = random.ints(16 * 37 + 5, 0, 200_000).toArray();
        BlockHasher hasher = BlockHasher.of(16);
        BlockChain whole = hasher.hash(tokens);

        BlockChain pieces = hasher.newChain();
        int completed = 0;
        for (int at = 0; at < tokens.length; ) {
            int length = Math.min(random.nextInt(40), tokens.length - at);
            completed += pieces.append(tokens, at, length);
            at += length;
        }

        assertThat(completed).isEqualTo(37);
        assertThat(pieces.hashes()).containsExactly(whole.hashes());
        assertThat(pieces.pendingTokens()).isEqualTo(5);
    }

    @Test
    void saltFollowsDynamosLoraSeedRule() {
        int[] tokens = {1, 2, 3, 4};
        long seed = 1337 + xxh3(0, "my-adapter".getBytes(StandardCharsets.UTF_8));

        BlockChain salted = BlockHasher.salted(4, "my-adapter").hash(tokens);

        assertThat(salted.localHash(0).value()).isEqualTo(xxh3(seed, leU32(tokens, 0, 4)));
        assertThat(salted.hash(0)).isNotEqualTo(BlockHasher.of(4).hash(tokens).hash(0));
        assertThat(BlockHasher.salted(4, "").hash(tokens).hashes()).containsExactly(BlockHasher.of(4).hash(tokens).hashes());
    }

    @Test
    void chainStepIgnoresSalt() {
        int[] tokens = {9, 8, 7, 6, 5, 4, 3, 2};
        BlockChain salted = BlockHasher.salted(4, "tenant-a").hash(tokens);

        long expected = xxh3(1337, le64Pair(salted.localHash(0).value(), salted.localHash(1).value()));

        assertThat(salted.hash(1).value()).isEqualTo(expected);
    }

    @Test
    void rejectsBadArguments() {
        assertThatThrownBy(() -> BlockHasher.of(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("block size must be positive (tokens per block)");
        assertThatThrownBy(() -> BlockHasher.of(16).localHash(new int[20], 5)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> BlockHasher.of(16).newChain().append(new int[4], 2, 3)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    private static Random seeded() {
        long seed = System.nanoTime();
        System.out.println("BlockHasherTest seed=" + seed);
        return new Random(seed);
    }
}
