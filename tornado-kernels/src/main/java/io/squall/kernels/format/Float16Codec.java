package io.squall.kernels.format;

import java.lang.foreign.MemorySegment;

/** GGML {@code F16}: one IEEE 754 binary16 value per element, 2 bytes. */
public final class Float16Codec {

    /** Bytes per element. */
    public static final int BYTES = 2;

    private Float16Codec() {
    }

    /** Widens {@code count} halves starting at byte {@code offset} into {@code dst[dstOffset ..]}; exact. */
    public static void dequantize(MemorySegment src, long offset, float[] dst, int dstOffset, int count) {
        for (int i = 0; i < count; i++) {
            dst[dstOffset + i] = LittleEndian.half(src, offset + (long) i * BYTES);
        }
    }

    /** Rounds {@code count} floats to halves (nearest even, as {@code GGML_FP32_TO_FP16}). */
    public static void quantize(float[] src, int srcOffset, int count, MemorySegment dst, long offset) {
        for (int i = 0; i < count; i++) {
            LittleEndian.putHalf(dst, offset + (long) i * BYTES, src[srcOffset + i]);
        }
    }
}
