package io.squall.functions.worker.kv;

import io.squall.functions.engine.batch.KvPool;
import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.KvEvent.StoredBlock;
import io.squall.kvgrid.LocalBlockHash;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.WorkerId;
import io.squall.kvgrid.metrics.KvStats;
import io.squall.kvgrid.offload.OnboardTransfer;
import io.squall.kvgrid.pool.Allocation;
import io.squall.kvgrid.pool.BlockPool;
import io.squall.kvgrid.pool.KvBlock;
import io.squall.kvgrid.pool.KvElementType;
import io.squall.kvgrid.pool.KvLayout;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KvConfigTest {

    private static final KvLayout LAYOUT = new KvLayout(1, 1, 4, 4, KvElementType.F32);

    @Test
    void aLongCachedPrefixComesBackFromTheHostTierWholeInOneOnboard() throws Exception {
        int promptBlocks = 1500; // more than any fixed per-onboard limit short of G1's size would let through
        KvConfig config = new KvConfig(promptBlocks + 100, LAYOUT.blockSize(), 2L * promptBlocks * LAYOUT.blockBytes(), null, 0);
        try (KvPool kv = config.open(LAYOUT, new WorkerId(1), events -> { }, KvStats.NONE)) {
            BlockPool pool = kv.pool();
            List<StoredBlock> prompt = LongStream.rangeClosed(1, promptBlocks)
                    .mapToObj(h -> new StoredBlock(new BlockHash(h), new LocalBlockHash(-h))).toList();
            List<KvBlock> written = allocate(pool, promptBlocks);
            BlockHash parent = null;
            for (int i = 0; i < promptBlocks; i++) {
                pool.page(written.get(i)).fill((byte) i);
                pool.commit(written.get(i), parent, prompt.get(i));
                parent = prompt.get(i).hash();
            }
            pool.free(written);
            kv.offload().drained().get(30, TimeUnit.SECONDS); // every block copied to the host tier
            List<KvBlock> pages = allocate(pool, promptBlocks); // G1 evicts the prompt to make room

            OnboardTransfer transfer = kv.offload().onboard(prompt, 0, LAYOUT,
                    count -> pages.subList(0, count).stream().map(pool::page).toList());

            assertThat(transfer.done().get(30, TimeUnit.SECONDS)).isEqualTo(promptBlocks);
            assertThat(transfer.sources()).containsOnly(Tier.G2);
            for (int i : new int[] {0, 1023, 1024, promptBlocks - 1}) {
                MemorySegment page = pool.page(pages.get(i));
                assertThat(page.get(ValueLayout.JAVA_BYTE, page.byteSize() - 1)).as("block %d", i)
                        .isEqualTo((byte) i);
            }
        }
    }

    private static List<KvBlock> allocate(BlockPool pool, int n) {
        return ((Allocation.Allocated) pool.allocate(n)).blocks();
    }

    @Test
    void theTiersMemoryIsG1AndG2RoundedToWholeBlocks() {
        long block = LAYOUT.blockBytes();
        assertThat(new KvConfig(10, LAYOUT.blockSize(), 3 * block + block / 2, null, 0).memoryBytes(LAYOUT))
                .isEqualTo(13 * block);
        assertThat(new KvConfig(10, LAYOUT.blockSize(), block - 1, null, 1L << 40).memoryBytes(LAYOUT))
                .as("a G2 smaller than a block is none; G3 is on disk").isEqualTo(10 * block);
    }

    @Test
    void tiersThatCannotFitBesideTheHeapAreRefusedAtStartWithWhatToChange() {
        long gib = 1L << 30;
        assertThatCode(() -> KvConfig.checkFits(3 * gib, gib, 4 * gib)).doesNotThrowAnyException();
        assertThatThrownBy(() -> KvConfig.checkFits(3 * gib + 1, gib, 4 * gib))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("3.00 GiB").hasMessageContaining("4.00 GiB")
                .hasMessageContaining("--kv-blocks").hasMessageContaining("--kv-host-bytes");
    }

    @Test
    void openingTiersLargerThanThisMachineFailsBeforeTakingMemory() {
        long physical = ((com.sun.management.OperatingSystemMXBean)
                java.lang.management.ManagementFactory.getOperatingSystemMXBean()).getTotalMemorySize();
        KvConfig tooLarge = new KvConfig(16, LAYOUT.blockSize(), physical, null, 0);
        assertThatThrownBy(() -> tooLarge.open(LAYOUT, new WorkerId(1), events -> { }, KvStats.NONE))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("KV tiers");
    }
}
