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
    void matmulSupportCoversTheFormatsOfLlamaCppsCommonMixes() {
        assertThat(GgmlType.values()).filteredOn(GgmlType::isMatmulSupported)
                .containsExactlyInAnyOrder(GgmlType.F32, GgmlType.F16, GgmlType.BF16, GgmlType.Q8_0,
                        GgmlType.Q4_0, GgmlType.Q4_1, GgmlType.Q5_0, GgmlType.Q5_1, GgmlType.IQ4_NL,
                        GgmlType.Q2_K, GgmlType.Q3_K, GgmlType.Q4_K, GgmlType.Q5_K, GgmlType.Q6_K, GgmlType.IQ4_XS);
        assertThat(GgmlType.supportedNames())
                .isEqualTo("F32, F16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_NL, IQ4_XS, BF16");
        assertThat(GgmlType.IQ2_XXS.isMatmulSupported()).isFalse();
    }

    @Test
    void newBlockGeometriesMatchGgml() {
        assertThat(GgmlType.Q4_1.bytesFor(32)).isEqualTo(2 + 2 + 16);
        assertThat(GgmlType.Q5_0.bytesFor(32)).isEqualTo(2 + 4 + 16);
        assertThat(GgmlType.Q5_1.bytesFor(32)).isEqualTo(2 + 2 + 4 + 16);
        assertThat(GgmlType.IQ4_NL.bytesFor(32)).isEqualTo(2 + 16);
        assertThat(GgmlType.Q2_K.bytesFor(256)).isEqualTo(16 + 64 + 2 + 2);
        assertThat(GgmlType.Q3_K.bytesFor(256)).isEqualTo(32 + 64 + 12 + 2);
        assertThat(GgmlType.Q5_K.bytesFor(256)).isEqualTo(2 + 2 + 12 + 32 + 128);
        assertThat(GgmlType.IQ4_XS.bytesFor(256)).isEqualTo(2 + 2 + 4 + 128);
    }
}
