package io.squall.kvgrid.offload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.squall.kvgrid.BlockHash;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class HostBlockStoreTest extends BlockStoreContract {

    @Override
    BlockStore newStore(int blocks) {
        return new HostBlockStore(blocks * BLOCK_BYTES + BLOCK_BYTES - 1, BLOCK_BYTES);
    }

    /** Fills the store's three slots with blocks 1, 2, 3; returns block 1's bytes. */
    private MemorySegment fill() {
        MemorySegment first = Pages.random(random, BLOCK_BYTES);
        store.put(new BlockHash(1), first);
        store.put(new BlockHash(2), Pages.random(random, BLOCK_BYTES));
        store.put(new BlockHash(3), Pages.random(random, BLOCK_BYTES));
        return first;
    }

    @Test
    void aPinnedBlockIsLentInPlaceAndOutlivesEvictionPressure() {
        MemorySegment first = fill();
        try (PinnedBlock pin = store.pin(new BlockHash(1))) {
            assertThat(pin.hash()).isEqualTo(new BlockHash(1));
            for (long hash = 4; hash <= 8; hash++) {
                assertThat(store.put(new BlockHash(hash), Pages.random(random, BLOCK_BYTES))).doesNotContain(new BlockHash(1));
            }
            store.put(new BlockHash(1), Pages.random(random, BLOCK_BYTES)); // equal hash: keeps the lent bytes
            assertThat(pin.page().mismatch(first)).as("seed %d", seed).isEqualTo(-1);
            assertThat(store.remove(new BlockHash(1))).isTrue();
            assertThat(store.contains(new BlockHash(1))).isFalse();
            assertThat(pin.page().mismatch(first)).isEqualTo(-1);
        }
        for (long hash = 9; hash <= 11; hash++) {
            store.put(new BlockHash(hash), Pages.random(random, BLOCK_BYTES));
        }
        assertThat(store.blockCount()).as("the removed pinned slot came back at the unpin").isEqualTo(3);
        assertThat(store.pin(new BlockHash(1))).isNull();
    }

    @Test
    void aPutFindingEverySlotPinnedFailsAndChangesNothing() {
        fill();
        List<PinnedBlock> pins = new ArrayList<>();
        for (long hash = 1; hash <= 3; hash++) {
            pins.add(store.pin(new BlockHash(hash)));
        }
        assertThatThrownBy(() -> store.put(new BlockHash(4), Pages.random(random, BLOCK_BYTES)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("pinned");
        assertThat(store.blockCount()).isEqualTo(3);
        pins.forEach(PinnedBlock::close);
        pins.getFirst().close(); // a second close changes nothing
        assertThat(store.put(new BlockHash(4), Pages.random(random, BLOCK_BYTES))).containsExactly(new BlockHash(1));
    }

    @Test
    void aPutShowsTheBlockItEvictsWhileItsBytesAreIntact() {
        MemorySegment oldest = fill();
        List<Long> spilled = new ArrayList<>();

        List<BlockHash> evicted = store.put(new BlockHash(4), Pages.random(random, BLOCK_BYTES), (hash, page) -> {
            assertThat(page.mismatch(oldest)).as("seed %d", seed).isEqualTo(-1);
            spilled.add(hash.value());
        });

        assertThat(evicted).containsExactly(new BlockHash(1));
        assertThat(spilled).containsExactly(1L);
    }
}
