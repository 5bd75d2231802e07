package io.squall.functions.api.codec;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Appends the primitive types of the wire format (see {@code docs/wire-protocol.md}) to a growing byte
 * array: unsigned LEB128 varints, zigzag varints, little-endian fixed-width numbers, length-prefixed
 * UTF-8 strings and byte strings.
 *
 * <p>Not thread-safe; one writer per message.
 */
public final class WireWriter {

    private byte[] bytes;
    private int size;

    public WireWriter(int initialCapacity) {
        this.bytes = new byte[Math.max(16, initialCapacity)];
    }

    /** The two-byte header every frame starts with. */
    public WireWriter header(MessageType type) {
        return u8(WireFormat.VERSION).u8(type.tag());
    }

    public WireWriter u8(int value) {
        ensure(1);
        bytes[size++] = (byte) value;
        return this;
    }

    public WireWriter bool(boolean value) {
        return u8(value ? 1 : 0);
    }

    /** A non-negative int as an unsigned LEB128 varint (1–5 bytes). */
    public WireWriter varint(int value) {
        if (value < 0) {
            throw new IllegalArgumentException("varints are non-negative");
        }
        ensure(5);
        int v = value;
        while ((v & ~0x7F) != 0) {
            bytes[size++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        bytes[size++] = (byte) v;
        return this;
    }

    /** A signed int, zigzag-mapped then written as a varint. */
    public WireWriter zigzag(int value) {
        ensure(5);
        int v = (value << 1) ^ (value >> 31);
        while ((v & ~0x7F) != 0) {
            bytes[size++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        bytes[size++] = (byte) v;
        return this;
    }

    public WireWriter i32(int value) {
        ensure(4);
        for (int i = 0; i < 4; i++) {
            bytes[size++] = (byte) (value >>> (8 * i));
        }
        return this;
    }

    public WireWriter i64(long value) {
        ensure(8);
        for (int i = 0; i < 8; i++) {
            bytes[size++] = (byte) (value >>> (8 * i));
        }
        return this;
    }

    public WireWriter f32(float value) {
        return i32(Float.floatToRawIntBits(value));
    }

    public WireWriter f64(double value) {
        return i64(Double.doubleToRawLongBits(value));
    }

    public WireWriter string(String value) {
        return bytes(value.getBytes(StandardCharsets.UTF_8));
    }

    /** A byte string: varint length, then the bytes. */
    public WireWriter bytes(byte[] value) {
        varint(value.length);
        ensure(value.length);
        System.arraycopy(value, 0, bytes, size, value.length);
        size += value.length;
        return this;
    }

    /** An int array of non-negative values: varint count, then one varint each. */
    public WireWriter varints(int[] values) {
        varint(values.length);
        for (int v : values) {
            varint(v);
        }
        return this;
    }

    /** The bytes written so far. */
    public byte[] toByteArray() {
        return Arrays.copyOf(bytes, size);
    }

    private void ensure(int more) {
        if (size + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
        }
    }
}
