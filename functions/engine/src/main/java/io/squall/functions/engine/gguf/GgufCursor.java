package io.squall.functions.engine.gguf;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A bounds-checked little-endian reader over a mapped GGUF file. Every read checks the remaining
 * bytes first, and every length or count is checked against them before anything is allocated, so
 * a hostile length field gives a {@link GgufException} rather than an out-of-memory.
 */
final class GgufCursor {

    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** Arrays nest at most this deep; real files use one level. */
    private static final int MAX_ARRAY_NESTING = 8;

    private final Path path;
    private final MemorySegment data;
    private long position;

    GgufCursor(Path path, MemorySegment data) {
        this.path = path;
        this.data = data;
    }

    long position() {
        return position;
    }

    GgufException error(long offset, String problem) {
        return new GgufException(path, offset, problem);
    }

    private void require(long bytes, String what) {
        if (bytes < 0 || bytes > data.byteSize() - position) {
            throw error(position, "truncated: " + what + " needs " + Long.toUnsignedString(bytes)
                    + " bytes but only " + (data.byteSize() - position) + " remain");
        }
    }

    byte readByte(String what) {
        require(1, what);
        return data.get(ValueLayout.JAVA_BYTE, position++);
    }

    short readShort(String what) {
        require(2, what);
        short value = data.get(SHORT, position);
        position += 2;
        return value;
    }

    int readInt(String what) {
        require(4, what);
        int value = data.get(INT, position);
        position += 4;
        return value;
    }

    long readLong(String what) {
        require(8, what);
        long value = data.get(LONG, position);
        position += 8;
        return value;
    }

    /** Reads a uint64 count of items that each take at least {@code minItemBytes}, checked against the rest of the file. */
    long readCount(String what, int minItemBytes) {
        long at = position;
        long count = readLong(what);
        if (count < 0 || count > (data.byteSize() - position) / minItemBytes) {
            throw error(at, what + " " + Long.toUnsignedString(count) + " cannot fit in the "
                    + (data.byteSize() - position) + " bytes that remain");
        }
        return count;
    }

    String readString(String what) {
        long at = position;
        long length = readLong("length of " + what);
        if (length < 0 || length > data.byteSize() - position) {
            throw error(at, "truncated: " + what + " claims " + Long.toUnsignedString(length)
                    + " bytes but only " + (data.byteSize() - position) + " remain");
        }
        if (length > Integer.MAX_VALUE - 8) {
            throw error(at, what + " of " + length + " bytes is too long");
        }
        byte[] bytes = data.asSlice(position, length).toArray(ValueLayout.JAVA_BYTE);
        position += length;
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(java.nio.ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            // Some vocabularies hold tokens that are not valid UTF-8 on their own; keep them readable.
            return new String(bytes, StandardCharsets.UTF_8);
        }
    }

    GgufValue readValue(String key) {
        long at = position;
        int typeId = readInt("value type of '" + key + "'");
        GgufValueType type = GgufValueType.fromId(typeId);
        if (type == null) {
            throw error(at, "metadata '" + key + "' has unknown value type " + Integer.toUnsignedString(typeId));
        }
        return type == GgufValueType.ARRAY ? readArrayValue(key, 0) : new GgufValue(type, null, readScalar(type, key));
    }

    /** Reads an array's element type, count and elements. */
    private GgufValue readArrayValue(String key, int depth) {
        long at = position;
        if (depth >= MAX_ARRAY_NESTING) {
            throw error(at, "metadata '" + key + "' nests arrays deeper than " + MAX_ARRAY_NESTING);
        }
        int elementId = readInt("array element type of '" + key + "'");
        GgufValueType elementType = GgufValueType.fromId(elementId);
        if (elementType == null) {
            throw error(at, "metadata '" + key + "' has unknown array element type " + Integer.toUnsignedString(elementId));
        }
        // Strings take at least their 8-byte length; nested arrays their 4-byte type and 8-byte count.
        int minBytes = elementType.size() > 0 ? elementType.size() : elementType == GgufValueType.STRING ? 8 : 12;
        long count = readCount("element count of '" + key + "'", minBytes);
        if (count > Integer.MAX_VALUE - 8) {
            throw error(at, "metadata '" + key + "' has too many elements: " + count);
        }
        return new GgufValue(GgufValueType.ARRAY, elementType, readArray(elementType, (int) count, key, depth));
    }

    private Object readScalar(GgufValueType type, String key) {
        String what = "value of '" + key + "'";
        return switch (type) {
            case UINT8 -> Byte.toUnsignedInt(readByte(what));
            case INT8 -> (int) readByte(what);
            case UINT16 -> Short.toUnsignedInt(readShort(what));
            case INT16 -> (int) readShort(what);
            case UINT32 -> Integer.toUnsignedLong(readInt(what));
            case INT32 -> readInt(what);
            case FLOAT32 -> Float.intBitsToFloat(readInt(what));
            case BOOL -> readBool(what);
            case STRING -> readString(what);
            case UINT64, INT64 -> readLong(what);
            case FLOAT64 -> Double.longBitsToDouble(readLong(what));
            case ARRAY -> throw new IllegalStateException("arrays are read by readArray");
        };
    }

    private boolean readBool(String what) {
        long at = position;
        byte b = readByte(what);
        if (b != 0 && b != 1) {
            throw error(at, what + " is a bool stored as " + b + " (expected 0 or 1)");
        }
        return b == 1;
    }

    private Object readArray(GgufValueType type, int count, String key, int depth) {
        String what = "elements of '" + key + "'";
        long bytes = type.size() > 0 ? (long) type.size() * count : 0;
        require(bytes, what);
        MemorySegment slice = data.asSlice(position, bytes);
        Object array = switch (type) {
            case UINT8, INT8 -> slice.toArray(ValueLayout.JAVA_BYTE);
            case UINT16, INT16 -> slice.toArray(SHORT);
            case UINT32, INT32 -> slice.toArray(INT);
            case UINT64, INT64 -> slice.toArray(LONG);
            case FLOAT32 -> slice.toArray(FLOAT);
            case FLOAT64 -> slice.toArray(DOUBLE);
            case BOOL -> {
                boolean[] bools = new boolean[count];
                for (int i = 0; i < count; i++) {
                    bools[i] = readBool(what);
                }
                yield bools;
            }
            case STRING -> {
                String[] strings = new String[count];
                for (int i = 0; i < count; i++) {
                    strings[i] = readString("element " + i + " of '" + key + "'");
                }
                yield strings;
            }
            case ARRAY -> {
                GgufValue[] values = new GgufValue[count];
                for (int i = 0; i < count; i++) {
                    values[i] = readArrayValue(key, depth + 1);
                }
                yield values;
            }
        };
        if (type != GgufValueType.BOOL) {
            position += bytes;
        }
        return array;
    }
}
