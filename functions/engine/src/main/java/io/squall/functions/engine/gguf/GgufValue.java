package io.squall.functions.engine.gguf;

import java.util.Objects;

/**
 * One metadata value with its GGUF type. Scalars are boxed: {@code Integer} for 8-, 16- and 32-bit
 * signed types and 8- and 16-bit unsigned ones, {@code Long} for {@code UINT32}, {@code INT64} and
 * {@code UINT64} (unsigned 64-bit keeps its bit pattern), {@code Float}, {@code Double},
 * {@code Boolean}, {@code String}. Arrays are primitive Java arrays by element type: {@code byte[]}
 * (8-bit), {@code short[]} (16-bit), {@code int[]} (32-bit integers, unsigned ones by bit pattern),
 * {@code long[]}, {@code float[]}, {@code double[]}, {@code boolean[]}, {@code String[]}, and
 * {@code GgufValue[]} for arrays of arrays.
 *
 * @param type the value's type
 * @param elementType for arrays, the elements' type; otherwise {@code null}
 * @param value the value, never {@code null}
 */
public record GgufValue(GgufValueType type, GgufValueType elementType, Object value) {

    public GgufValue {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(value, "value");
        if ((type == GgufValueType.ARRAY) != (elementType != null)) {
            throw new IllegalArgumentException("elementType is required for arrays and only for arrays");
        }
    }

    public static GgufValue ofString(String value) {
        return new GgufValue(GgufValueType.STRING, null, value);
    }

    public static GgufValue ofUint32(long value) {
        if (value < 0 || value > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("not a uint32: " + value);
        }
        return new GgufValue(GgufValueType.UINT32, null, value);
    }

    public static GgufValue ofInt32(int value) {
        return new GgufValue(GgufValueType.INT32, null, value);
    }

    public static GgufValue ofFloat32(float value) {
        return new GgufValue(GgufValueType.FLOAT32, null, value);
    }

    public static GgufValue ofBool(boolean value) {
        return new GgufValue(GgufValueType.BOOL, null, value);
    }

    public static GgufValue ofStrings(String[] values) {
        return new GgufValue(GgufValueType.ARRAY, GgufValueType.STRING, values);
    }

    public static GgufValue ofFloats(float[] values) {
        return new GgufValue(GgufValueType.ARRAY, GgufValueType.FLOAT32, values);
    }

    public static GgufValue ofInts(int[] values) {
        return new GgufValue(GgufValueType.ARRAY, GgufValueType.INT32, values);
    }
}
