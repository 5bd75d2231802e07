package io.squall.kernels;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GgmlTypeTest {

    @Test
    void blockGeometryMatchesGgml() {
        assertThat(GgmlType.F32.bytesFor(7)).isEqualTo(28);
        assertThat(GgmlType.F16.bytesFor(7)).isEqualTo(14);
        assertThat(GgmlType.BF16.bytesFor(7)).isEqualTo(14);
        assertThat(GgmlType.Q8_0.bytesFor(64)).isEqualTo(2 * (2 + 32));
        assertThat(GgmlType.Q4_0.bytesFor(64)).isEqualTo(2 * (2 + 16));
        assertThat(GgmlType.Q4_K.bytesFor(512)).isEqualTo(2 * (2 + 2 + 12 + 128));
        assertThat(GgmlType.Q6_K.bytesFor(512)).isEqualTo(2 * (128 + 64 + 16 + 2));
    }

    @Test
    void idsRoundTrip() {
        for (GgmlType type : GgmlType.values()) {
            assertThat(GgmlType.fromId(type.id())).isSameAs(type);
        }
        assertThat(GgmlType.fromId(4)).isNull();
        assertThat(GgmlType.fromId(-1)).isNull();
        assertThat(GgmlType.Q6_K.id()).isEqualTo(14);
        assertThat(GgmlType.BF16.id()).isEqualTo(30);
    }

    @Test
    void partialBlocksAreRejected() {
        assertThatThrownBy(() -> GgmlType.Q4_K.bytesFor(100)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> GgmlType.Q8_0.bytesFor(-32)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void matmulSupportCoversTheSevenFormats() {
        assertThat(GgmlType.values()).filteredOn(GgmlType::isMatmulSupported)
                .containsExactlyInAnyOrder(GgmlType.F32, GgmlType.F16, GgmlType.BF16, GgmlType.Q8_0,
                        GgmlType.Q4_0, GgmlType.Q4_K, GgmlType.Q6_K);
    }
}
