package io.squall.kvgrid.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class KvLayoutTest {

    private final KvLayout layout = new KvLayout(3, 2, 8, 16, KvElementType.F32);

    @Test
    void sizesFollowTheLayerAndKvPlaneOrder() {
        assertThat(layout.slotBytes()).isEqualTo(2 * 8 * 4);
        assertThat(layout.planeBytes()).isEqualTo(16 * 64);
        assertThat(layout.layerBytes()).isEqualTo(2 * 1024);
        assertThat(layout.blockBytes()).isEqualTo(3 * 2048);
    }

    @Test
    void everyElementOfEveryTokenHasItsOwnPlaceAndThePageIsCovered() {
        int elements = layout.kvHeads() * layout.headDim();
        boolean[] seen = new boolean[(int) (layout.blockBytes() / Float.BYTES)];
        for (int layer = 0; layer < layout.layers(); layer++) {
            for (KvPart part : KvPart.values()) {
                for (int slot = 0; slot < layout.blockSize(); slot++) {
                    for (int e = 0; e < elements; e++) {
                        long offset = layout.offsetInBlock(layer, part, slot) + e * layout.elementStride(part);
                        int index = (int) (offset / Float.BYTES);
                        assertThat(seen[index]).as("%d/%s/slot %d/element %d overlaps", layer, part, slot, e).isFalse();
                        seen[index] = true;
                    }
                }
            }
        }
        assertThat(seen).containsOnly(true);
    }

    @Test
    void valuesAreTokenMajorAndKeysElementMajor() {
        assertThat(layout.offsetInBlock(1, KvPart.V, 2))
                .isEqualTo(layout.layerBytes() + layout.planeBytes() + 2 * layout.slotBytes());
        assertThat(layout.elementStride(KvPart.V)).isEqualTo(4);
        // keys: element e of slot s at plane + (e·blockSize + s)·4, so one element of consecutive slots is contiguous
        assertThat(layout.offsetInBlock(1, KvPart.K, 2) + 5 * layout.elementStride(KvPart.K))
                .isEqualTo(layout.layerBytes() + (5L * 16 + 2) * 4);
    }

    @Test
    void rejectsOutOfRangeCoordinatesAndShapes() {
        assertThatThrownBy(() -> layout.offsetInBlock(3, KvPart.K, 0)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> layout.offsetInBlock(0, KvPart.K, 16)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> new KvLayout(1, 0, 8, 16, KvElementType.F32))
                .hasMessage("kvHeads must be > 0");
    }
}
