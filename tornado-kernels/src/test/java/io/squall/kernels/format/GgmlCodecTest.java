package io.squall.kernels.format;

import io.squall.kernels.GgmlType;
import io.squall.kernels.TestData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class GgmlCodecTest {

    private final TestData data = new TestData(getClass().getSimpleName());

    private static MemorySegment segment(GgmlType type, int count) {
        return MemorySegment.ofArray(new byte[(int) type.bytesFor(count)]);
    }

    private float[] roundTrip(GgmlType type, float[] values) {
        MemorySegment seg = segment(type, values.length);
        GgmlCodec.quantize(type, values, 0, values.length, seg, 0);
        float[] back = new float[values.length];
        GgmlCodec.dequantize(type, seg, 0, back, 0, values.length);
        return back;
    }

    @Test
    void f32IsExact() {
        float[] values = data.floats(37, 1e6);
        assertThat(roundTrip(GgmlType.F32, values)).containsExactly(values);
    }

    @Test
    void f16IsExactOnRepresentableValues() {
        float[] values = new float[4096];
        for (int i = 0; i < values.length; i++) {
            short bits;
            do {
                bits = (short) data.nextInt(1 << 16);
            } while (Float.isNaN(Float.float16ToFloat(bits)));
            values[i] = Float.float16ToFloat(bits);
        }
        values[0] = Float.float16ToFloat((short) 0x0001);
        values[1] = Float.float16ToFloat((short) 0x7c00);
        values[2] = -0f;
        assertThat(roundTrip(GgmlType.F16, values)).containsExactly(values);
    }

    @Test
    void bf16IsExactOnRepresentableValuesAndRoundsToNearestEven() {
        float[] values = new float[4096];
        for (int i = 0; i < values.length; i++) {
            do {
                values[i] = Float.intBitsToFloat(data.nextInt(1 << 16) << 16);
            } while (Float.isNaN(values[i]));
        }
        assertThat(roundTrip(GgmlType.BF16, values)).containsExactly(values);
        assertThat(BFloat16Codec.toFloat(BFloat16Codec.fromFloat(1f + 0x1p-8f))).isEqualTo(1f);
        assertThat(BFloat16Codec.toFloat(BFloat16Codec.fromFloat(1f + 0x1p-7f + 0x1p-8f))).isEqualTo(1f + 0x1p-6f);
        assertThat(BFloat16Codec.toFloat(BFloat16Codec.fromFloat(1f + 0x1p-8f + 0x1p-20f))).isEqualTo(1f + 0x1p-7f);
        assertThat(BFloat16Codec.toFloat(BFloat16Codec.fromFloat(Float.NaN))).isNaN();
    }

    @Test
    void q8_0MatchesGgmlReferenceQuantizer() {
        float[] values = new float[32];
        for (int j = 0; j < 32; j++) {
            values[j] = j - 16;
        }
        MemorySegment seg = segment(GgmlType.Q8_0, 32);
        Q8_0Codec.quantize(values, 0, 32, seg, 0);
        assertThat(LittleEndian.half(seg, 0)).isEqualTo(Float.float16ToFloat(Float.floatToFloat16(16f / 127)));
        assertThat(seg.get(ValueLayout.JAVA_BYTE, 2)).isEqualTo((byte) -127);
        assertThat(seg.get(ValueLayout.JAVA_BYTE, 2 + 17)).isEqualTo((byte) 8);
        assertThat(seg.get(ValueLayout.JAVA_BYTE, 2 + 16)).isEqualTo((byte) 0);
        assertThat(Q8_0Codec.roundHalfAway(-2.5f)).isEqualTo(-3);
        assertThat(Q8_0Codec.roundHalfAway(2.5f)).isEqualTo(3);
        assertThat(Q8_0Codec.roundHalfAway(0.49999997f)).isEqualTo(0);
    }

    @Test
    void q4_0MatchesGgmlReferenceQuantizer() {
        float[] values = new float[32];
        for (int j = 0; j < 32; j++) {
            values[j] = j - 16;
        }
        MemorySegment seg = segment(GgmlType.Q4_0, 32);
        Q4_0Codec.quantize(values, 0, 32, seg, 0);
        assertThat(LittleEndian.half(seg, 0)).isEqualTo(2f);
        float[] back = new float[32];
        Q4_0Codec.dequantize(seg, 0, back, 0, 32);
        assertThat(back[0]).isEqualTo(-16f);
        assertThat(back[2]).isEqualTo(-14f);
        assertThat(back[3]).isEqualTo(-12f);
        assertThat(back[31]).isEqualTo(14f);
        assertThat(LittleEndian.ubyte(seg, 2 + 1)).isEqualTo(1 | (9 << 4));
    }

    @Test
    void q4_0NibbleOrderIsLowFirstHalf() {
        MemorySegment seg = segment(GgmlType.Q4_0, 32);
        LittleEndian.putHalf(seg, 0, 2f);
        seg.set(ValueLayout.JAVA_BYTE, 2, (byte) 0x9F);
        float[] out = new float[32];
        Q4_0Codec.dequantize(seg, 0, out, 0, 32);
        assertThat(out[0]).isEqualTo(14f);
        assertThat(out[16]).isEqualTo(2f);
        assertThat(out[1]).isEqualTo(-16f);
    }

    @Test
    void q4_KUnpacksSixBitScalesAndMinsLikeGetScaleMinK4() {
        MemorySegment seg = segment(GgmlType.Q4_K, 256);
        LittleEndian.putHalf(seg, 0, 1f);
        LittleEndian.putHalf(seg, 2, 0.5f);
        seg.set(ValueLayout.JAVA_BYTE, 4 + 1, (byte) (0xC0 | 3));
        seg.set(ValueLayout.JAVA_BYTE, 4 + 5, (byte) (0x80 | 7));
        seg.set(ValueLayout.JAVA_BYTE, 4 + 9, (byte) 0xA5);
        seg.set(ValueLayout.JAVA_BYTE, 16, (byte) 0x20);
        seg.set(ValueLayout.JAVA_BYTE, 16 + 64, (byte) 0x70);
        assertThat(Q4_KCodec.scale(seg, 0, 5)).isEqualTo(53);
        assertThat(Q4_KCodec.min(seg, 0, 5)).isEqualTo(42);
        float[] out = new float[256];
        Q4_KCodec.dequantize(seg, 0, out, 0, 256);
        assertThat(out[160]).isEqualTo(53 * 7 - 0.5f * 42);
        assertThat(out[32]).isEqualTo(3 * 2 - 0.5f * 7);
        assertThat(out[33]).isEqualTo(-0.5f * 7);
    }

    @Test
    void q6_KCombinesLowAndHighBitsLikeDequantizeRowQ6K() {
        MemorySegment seg = segment(GgmlType.Q6_K, 256);
        LittleEndian.putHalf(seg, Q6_KCodec.D_OFFSET, 0.25f);
        seg.set(ValueLayout.JAVA_BYTE, 6, (byte) 0xB0);
        seg.set(ValueLayout.JAVA_BYTE, Q6_KCodec.QH_OFFSET + 6, (byte) 0x20);
        seg.set(ValueLayout.JAVA_BYTE, Q6_KCodec.SCALES_OFFSET + 4, (byte) -3);
        seg.set(ValueLayout.JAVA_BYTE, 97, (byte) 0x05);
        seg.set(ValueLayout.JAVA_BYTE, Q6_KCodec.QH_OFFSET + 33, (byte) 0x0C);
        seg.set(ValueLayout.JAVA_BYTE, Q6_KCodec.SCALES_OFFSET + 10, (byte) 2);
        float[] out = new float[256];
        Q6_KCodec.dequantize(seg, 0, out, 0, 256);
        assertThat(out[70]).isEqualTo(0.25f * -3 * 11);
        assertThat(out[161]).isEqualTo(0.25f * 2 * 21);
        assertThat(out[6]).isEqualTo(0f);
    }

    @ParameterizedTest
    @EnumSource(value = GgmlType.class, names = {"Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "IQ4_NL", "Q2_K", "Q3_K",
            "Q4_K", "Q5_K", "Q6_K", "IQ4_XS"})
    void quantizedRoundTripStaysWithinTheFormatsErrorBound(GgmlType type) {
        int n = 256 * 3;
        float[] values = data.floats(n, 3);
        float[] back = roundTrip(type, values);
        int group = type.blockSize();
        double relative = switch (type) {
            case Q8_0 -> 1.0 / 254 + 1e-3;
            case Q4_0 -> 1.0 / 8 + 1e-3;
            case Q4_1 -> 1.0 / 15 + 1e-3;
            case Q5_0 -> 1.0 / 16 + 1e-3;
            case Q5_1 -> 1.0 / 31 + 1e-3;
            case IQ4_NL -> 0.15;
            case Q2_K -> 0.45;
            case Q3_K -> 0.3;
            case Q4_K -> 0.12;
            case Q5_K -> 0.06;
            case Q6_K -> 0.025;
            case IQ4_XS -> 0.15;
            default -> throw new AssertionError(type);
        };
        double worst = 0;
        for (int start = 0; start < n; start += group) {
            double amax = 0;
            for (int j = start; j < start + group; j++) {
                amax = Math.max(amax, Math.abs(values[j]));
            }
            for (int j = start; j < start + group; j++) {
                assertThat((double) back[j]).as("seed %d, %s element %d", data.seed, type, j)
                        .isCloseTo(values[j], within(relative * amax));
                worst = Math.max(worst, Math.abs(back[j] - values[j]) / amax);
            }
        }
        assertThat(worst).as("a lossy format loses something").isGreaterThan(0);
    }

    @Test
    void zeroBlocksQuantizeToZero() {
        for (GgmlType type : TestData.quantizedTypes()) {
            for (float v : roundTrip(type, new float[256])) {
                assertThat(v == 0f).as("%s decodes a zero block to (signed) zeros", type).isTrue();
            }
        }
    }

    @Test
    void rejectsPartialBlocksAndUnsupportedFormats() {
        float[] out = new float[64];
        MemorySegment seg = MemorySegment.ofArray(new byte[64]);
        assertThatThrownBy(() -> GgmlCodec.dequantize(GgmlType.Q8_0, seg, 0, out, 0, 31))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> GgmlCodec.dequantize(GgmlType.IQ2_XXS, seg, 0, out, 0, 256))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> GgmlCodec.quantize(GgmlType.F32, out, 0, 64, seg, 0))
                .isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void q5_0TakesTheFifthBitOfElementJFromBitJOfQh() {
        MemorySegment seg = segment(GgmlType.Q5_0, 32);
        LittleEndian.putHalf(seg, 0, 0.5f);
        seg.set(ValueLayout.JAVA_INT_UNALIGNED, 2, (1 << 3) | (1 << 19)); // little-endian host
        seg.set(ValueLayout.JAVA_BYTE, 6 + 3, (byte) 0x52);
        float[] out = new float[32];
        GgmlCodec.dequantize(GgmlType.Q5_0, seg, 0, out, 0, 32);
        assertThat(out[3]).isEqualTo(0.5f * ((2 | 16) - 16));
        assertThat(out[19]).isEqualTo(0.5f * ((5 | 16) - 16));
        assertThat(out[0]).isEqualTo(0.5f * -16);
    }

    @Test
    void q5_1AndQ4_1AddTheirMin() {
        MemorySegment seg = segment(GgmlType.Q5_1, 32);
        LittleEndian.putHalf(seg, 0, 0.25f);
        LittleEndian.putHalf(seg, 2, -1f);
        seg.set(ValueLayout.JAVA_INT_UNALIGNED, 4, 1 << 31);
        seg.set(ValueLayout.JAVA_BYTE, 8 + 15, (byte) 0xF1);
        float[] out = new float[32];
        GgmlCodec.dequantize(GgmlType.Q5_1, seg, 0, out, 0, 32);
        assertThat(out[15]).isEqualTo(0.25f * 1 - 1f);
        assertThat(out[31]).isEqualTo(0.25f * 31 - 1f);
        MemorySegment q41 = segment(GgmlType.Q4_1, 32);
        LittleEndian.putHalf(q41, 0, 0.25f);
        LittleEndian.putHalf(q41, 2, -1f);
        q41.set(ValueLayout.JAVA_BYTE, 4 + 15, (byte) 0xF1);
        GgmlCodec.dequantize(GgmlType.Q4_1, q41, 0, out, 0, 32);
        assertThat(out[31]).isEqualTo(0.25f * 15 - 1f);
    }

    @Test
    void q5_0QuantizerMatchesGgmlReference() {
        float[] values = new float[32];
        for (int j = 0; j < 32; j++) {
            values[j] = j - 16;
        }
        float[] back = roundTrip(GgmlType.Q5_0, values);
        assertThat(back).containsExactly(values);
    }

    @Test
    void iq4_nlMapsNibblesThroughTheGrid() {
        MemorySegment seg = segment(GgmlType.IQ4_NL, 32);
        LittleEndian.putHalf(seg, 0, 0.5f);
        seg.set(ValueLayout.JAVA_BYTE, 2 + 4, (byte) 0xF0);
        float[] out = new float[32];
        GgmlCodec.dequantize(GgmlType.IQ4_NL, seg, 0, out, 0, 32);
        assertThat(out[4]).isEqualTo(0.5f * -127);
        assertThat(out[20]).isEqualTo(0.5f * 113);
        assertThat(out[5]).isEqualTo(0.5f * -127);
    }

    @Test
    void q2_KReadsFourLevelsPerByteAndNibbleScales() {
        MemorySegment seg = segment(GgmlType.Q2_K, 256);
        LittleEndian.putHalf(seg, Q2_KCodec.D_OFFSET, 0.5f);
        LittleEndian.putHalf(seg, Q2_KCodec.DMIN_OFFSET, 0.25f);
        seg.set(ValueLayout.JAVA_BYTE, 13, (byte) 0x37); // sub-block 13: scale 7, min 3
        seg.set(ValueLayout.JAVA_BYTE, Q2_KCodec.QS_OFFSET + 32 + 5, (byte) 0b10_00_00_00); // n=1, k=3, l=5
        float[] out = new float[256];
        GgmlCodec.dequantize(GgmlType.Q2_K, seg, 0, out, 0, 256);
        int i = 128 + 96 + 5; // sub-block 14
        assertThat(out[i]).isEqualTo(-0f);
        seg.set(ValueLayout.JAVA_BYTE, 14, (byte) 0x37);
        GgmlCodec.dequantize(GgmlType.Q2_K, seg, 0, out, 0, 256);
        assertThat(out[i]).isEqualTo(0.5f * 7 * 2 - 0.25f * 3);
        assertThat(out[13 * 16]).isEqualTo(-0.25f * 3);
    }

    @Test
    void q3_KUnpacksSixBitScalesAndTheHighBitMask() {
        MemorySegment seg = segment(GgmlType.Q3_K, 256);
        LittleEndian.putHalf(seg, Q3_KCodec.D_OFFSET, 0.5f);
        // scale 10: low nibble = high nibble of byte 2, high bits = bits 4-5 of byte 8 + 2
        seg.set(ValueLayout.JAVA_BYTE, Q3_KCodec.SCALES_OFFSET + 2, (byte) 0x90);
        seg.set(ValueLayout.JAVA_BYTE, Q3_KCodec.SCALES_OFFSET + 10, (byte) 0b10_0000);
        assertThat(Q3_KCodec.scale(seg, 0, 10)).isEqualTo((9 | 2 << 4) - 32);
        assertThat(Q3_KCodec.scale(seg, 0, 2)).isEqualTo(-32);
        int i = 128 + 32 + 7; // n=1, k=1, l=7: sub-block 10; hmask bit 5 of byte 7
        seg.set(ValueLayout.JAVA_BYTE, Q3_KCodec.QS_OFFSET + 32 + 7, (byte) 0b11_00);
        seg.set(ValueLayout.JAVA_BYTE, 7, (byte) (1 << 5));
        float[] out = new float[256];
        GgmlCodec.dequantize(GgmlType.Q3_K, seg, 0, out, 0, 256);
        assertThat(out[i]).isEqualTo(0.5f * 9 * 3);
        assertThat(out[i - 128]).isEqualTo(0.5f * -32 * -4);
    }

    @Test
    void q5_KTakesTheFifthBitOfSubBlockSFromBitSOfQh() {
        MemorySegment seg = segment(GgmlType.Q5_K, 256);
        LittleEndian.putHalf(seg, 0, 1f);
        seg.set(ValueLayout.JAVA_BYTE, 4 + 5, (byte) 2); // sub-block 5: min 2 (mins of 4..7 sit in bytes 8..11)
        seg.set(ValueLayout.JAVA_BYTE, 4 + 9, (byte) 0x03); // sub-block 5: scale 3
        seg.set(ValueLayout.JAVA_BYTE, Q5_KCodec.QH_OFFSET + 6, (byte) (1 << 5));
        seg.set(ValueLayout.JAVA_BYTE, Q5_KCodec.QS_OFFSET + 64 + 6, (byte) 0x40);
        float[] out = new float[256];
        GgmlCodec.dequantize(GgmlType.Q5_K, seg, 0, out, 0, 256);
        assertThat(Q4_KCodec.scale(seg, 0, 5)).isEqualTo(3);
        assertThat(out[160 + 6]).isEqualTo(3f * (4 + 16));
        assertThat(out[128 + 6]).isEqualTo(0f);
    }

    @Test
    void iq4_XsCombinesLowAndHighScaleBits() {
        MemorySegment seg = segment(GgmlType.IQ4_XS, 256);
        LittleEndian.putHalf(seg, 0, 0.5f);
        seg.set(ValueLayout.JAVA_SHORT_UNALIGNED, IQ4_XSCodec.SCALES_H_OFFSET, (short) (3 << 10)); // sub-block 5
        seg.set(ValueLayout.JAVA_BYTE, IQ4_XSCodec.SCALES_L_OFFSET + 2, (byte) 0x40);
        seg.set(ValueLayout.JAVA_BYTE, IQ4_XSCodec.QS_OFFSET + 16 * 5 + 1, (byte) 0x0F);
        assertThat(IQ4_XSCodec.scale(seg, 0, 5)).isEqualTo((4 | 3 << 4) - 32);
        float[] out = new float[256];
        GgmlCodec.dequantize(GgmlType.IQ4_XS, seg, 0, out, 0, 256);
        assertThat(out[160 + 1]).isEqualTo(0.5f * 20 * 113);
        assertThat(out[160 + 17]).isEqualTo(0.5f * 20 * -127);
        assertThat(out[0]).isEqualTo(0.5f * -32 * -127);
    }
}
