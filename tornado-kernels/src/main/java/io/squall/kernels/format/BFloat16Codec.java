package io.squall.kernels.format;

import java.lang.foreign.MemorySegment;

/** GGML {@code BF16}: the upper 16 bits of an IEEE binary32 value per element, 2 bytes. */
public final class BFloat16Codec {

    /** Bytes per element. */
    public static final int BYTES = 2;

    private BFloat16Codec() {
    }

    /** The float whose upper half is {@code bits}; exact. */
    public static float toFloat(short bits) {
        return Float.intBitsToFloat(bits << 16);
    }

    /**
     * Rounds to bfloat16 as ggml's {@code ggml_compute_fp32_to_bf16}: round to nearest even on the
     * dropped 16 bits; NaN stays NaN (quiet bit forced).
     */
    public static short fromFloat(float value) {
        int bits = Float.floatToRawIntBits(value);
        if ((bits & 0x7fffffff) > 0x7f800000) {
            return (short) ((bits >>> 16) | 64);
        }
        return (short) ((bits + (0x7fff + ((bits >>> 16) & 1))) >>> 16);
    }

    /** Widens {@code count} bfloat16 values starting at byte {@code offset}; exact. */
    public static void dequantize(MemorySegment src, long offset, float[] dst, int dstOffset, int count) {
        for (int i = 0; i < count; i++) {
            dst[dstOffset + i] = toFloat(src.get(LittleEndian.SHORT, offset + (long) i * BYTES));
        }
    }

    /** Rounds {@code count} floats with {@link #fromFloat}. */
    public static void quantize(float[] src, int srcOffset, int count, MemorySegment dst, long offset) {
        for (int i = 0; i < count; i++) {
            dst.set(LittleEndian.SHORT, offset + (long) i * BYTES, fromFloat(src[srcOffset + i]));
        }
    }
}
