package io.squall.kvgrid.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class KvLayoutTest {

    private final KvLayout layout = new KvLayout(3, 2, 8, 16, KvElementType.F32);

    @Test
    void sizesFollowTheLayerKvSlotHeadOrder() {
        assertThat(layout.slotBytes()).isEqualTo(2 * 8 * 4);
        assertThat(layout.planeBytes()).isEqualTo(16 * 64);
        assertThat(layout.layerBytes()).isEqualTo(2 * 1024);
        assertThat(layout.blockBytes()).isEqualTo(3 * 2048);
    }

    @Test
    void offsetsAreDisjointAndCoverThePage() {
        boolean[] seen = new boolean[(int) (layout.blockBytes() / layout.slotBytes())];
        for (int layer = 0; layer < layout.layers(); layer++) {
            for (KvPart part : KvPart.values()) {
                for (int slot = 0; slot < layout.blockSize(); slot++) {
                    long offset = layout.offsetInBlock(layer, part, slot);
                    assertThat(offset % layout.slotBytes()).isZero();
                    int index = (int) (offset / layout.slotBytes());
                    assertThat(seen[index]).as("slot %d/%s/%d overlaps", layer, part, slot).isFalse();
                    seen[index] = true;
                }
            }
        }
        assertThat(seen).containsOnly(true);
        assertThat(layout.offsetInBlock(1, KvPart.V, 2))
                .isEqualTo(layout.layerBytes() + layout.planeBytes() + 2 * layout.slotBytes());
    }

    @Test
    void rejectsOutOfRangeCoordinatesAndShapes() {
        assertThatThrownBy(() -> layout.offsetInBlock(3, KvPart.K, 0)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> layout.offsetInBlock(0, KvPart.K, 16)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> new KvLayout(1, 0, 8, 16, KvElementType.F32))
                .hasMessage("kvHeads must be > 0");
    }
}
