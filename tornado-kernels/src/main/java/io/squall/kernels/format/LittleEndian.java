package io.squall.kernels.format;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** Unaligned little-endian accessors for GGML blocks, which pack halves at odd offsets. */
public final class LittleEndian {

    /** A 16-bit value at any byte offset. */
    public static final ValueLayout.OfShort SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** A 32-bit float at any byte offset. */
    public static final ValueLayout.OfFloat FLOAT =
            ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private LittleEndian() {
    }

    /** The IEEE half at byte {@code offset}, widened to float. */
    public static float half(MemorySegment segment, long offset) {
        return Float.float16ToFloat(segment.get(SHORT, offset));
    }

    /** Writes {@code value} rounded to an IEEE half (round to nearest even) at byte {@code offset}. */
    public static void putHalf(MemorySegment segment, long offset, float value) {
        segment.set(SHORT, offset, Float.floatToFloat16(value));
    }

    /** The unsigned byte at {@code offset}. */
    public static int ubyte(MemorySegment segment, long offset) {
        return segment.get(ValueLayout.JAVA_BYTE, offset) & 0xFF;
    }
}
