package io.squall.kvgrid.offload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.squall.kvgrid.BlockHash;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What every bounded, self-evicting {@link BlockStore} guarantees; run once per implementation. */
abstract class BlockStoreContract {

    static final long BLOCK_BYTES = 512;
    private static final Logger LOG = LoggerFactory.getLogger(BlockStoreContract.class);

    protected BlockStore store;
    protected Random random;
    protected long seed;

    /** A store holding at most {@code blocks} pages of {@link #BLOCK_BYTES}. */
    abstract BlockStore newStore(int blocks);

    @BeforeEach
    void open() {
        seed = System.nanoTime();
        LOG.info("{} seed={}", getClass().getSimpleName(), seed);
        random = new Random(seed);
        store = newStore(3);
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    MemorySegment target() {
        return Arena.ofAuto().allocate(BLOCK_BYTES);
    }

    @Test
    void readsBackTheExactBytesPut() {
        MemorySegment page = Pages.random(random, BLOCK_BYTES);
        assertThat(store.put(new BlockHash(1), page)).isEmpty();

        MemorySegment target = target();
        assertThat(store.read(new BlockHash(1), target)).isEqualTo(ReadResult.HIT);
        assertThat(Pages.crc(target)).as("seed %d", seed).isEqualTo(Pages.crc(page));
        assertThat(target.mismatch(page)).isEqualTo(-1);
        assertThat(store.read(new BlockHash(2), target)).isEqualTo(ReadResult.MISSING);
    }

    @Test
    void evictsTheLeastRecentlyUsedWhenFull() {
        for (long hash = 1; hash <= 3; hash++) {
            assertThat(store.put(new BlockHash(hash), Pages.random(random, BLOCK_BYTES))).isEmpty();
        }
        assertThat(store.read(new BlockHash(1), target())).isEqualTo(ReadResult.HIT);
        assertThat(store.contains(new BlockHash(2))).isTrue();

        assertThat(store.put(new BlockHash(4), Pages.random(random, BLOCK_BYTES))).containsExactly(new BlockHash(2));
        assertThat(store.contains(new BlockHash(2))).isFalse();
        assertThat(store.blockCount()).isEqualTo(3);
    }

    @Test
    void replacingAndRemovingKeepTheCount() {
        MemorySegment second = Pages.random(random, BLOCK_BYTES);
        store.put(new BlockHash(1), Pages.random(random, BLOCK_BYTES));
        store.put(new BlockHash(1), second);
        assertThat(store.blockCount()).isEqualTo(1);
        MemorySegment target = target();
        store.read(new BlockHash(1), target);
        assertThat(target.mismatch(second)).isEqualTo(-1);

        assertThat(store.remove(new BlockHash(1))).isTrue();
        assertThat(store.remove(new BlockHash(1))).isFalse();
        assertThat(store.read(new BlockHash(1), target)).isEqualTo(ReadResult.MISSING);
        assertThat(store.blockCount()).isZero();
    }

    @Test
    void rejectsPagesOfTheWrongSize() {
        assertThatThrownBy(() -> store.put(new BlockHash(1), Arena.ofAuto().allocate(BLOCK_BYTES - 1)))
                .hasMessage("page size differs from the store's blockBytes");
    }
}
