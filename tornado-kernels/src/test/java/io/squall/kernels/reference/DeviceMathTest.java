package io.squall.kernels.reference;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class DeviceMathTest {

    @Test
    void halfToFloatIsExactForEveryFiniteHalf() {
        for (int bits = 0; bits < 1 << 16; bits++) {
            if (((bits >> 10) & 0x1F) == 0x1F) {
                continue; // infinities and NaN: never GGML scales, not decoded
            }
            float expected = Float.float16ToFloat((short) bits);
            assertThat(Float.floatToRawIntBits(DeviceMath.halfToFloat(bits)))
                    .as("half 0x%04x", bits).isEqualTo(Float.floatToRawIntBits(expected));
            assertThat(DeviceMath.halfToFloat((byte) bits, (byte) (bits >> 8))).isEqualTo(expected);
        }
    }

    @Test
    void siluAndRmsScaleFollowTheirDefinitions() {
        assertThat(DeviceMath.silu(0f)).isZero();
        assertThat(DeviceMath.silu(2f)).isCloseTo((float) (2 / (1 + Math.exp(-2))), org.assertj.core.data.Offset.offset(1e-6f));
        assertThat(DeviceMath.rmsScale(16f, 4, 0f)).isEqualTo(0.5f);
    }
}
