package io.squall.kernels;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * A row-major {@code rows × cols} matrix stored in a GGML format: row {@code r} occupies bytes
 * {@code [r·rowBytes, (r+1)·rowBytes)} of {@code data}. In GGUF terms {@code cols} is {@code ne[0]}
 * (the input dimension of a linear layer) and {@code rows} is {@code ne[1]} (its output dimension).
 *
 * <p>The data is usually a slice of a memory-mapped model file and is never copied. A native segment is held as a
 * plain native segment of the same address, size and scope ({@link MemorySegment#reinterpret(long)}), whatever
 * its origin: the Vector API's segment loads keep one type profile for every caller in the JVM, and once they had
 * seen both a mapped segment (the weights) and a plain one (the KV cache), C2 compiled the F32 decode dot with a
 * class check on every load, a fifth to a third slower (docs/BENCHMARKS.md).
 *
 * @param name the tensor's name, for error messages
 * @param type the storage format
 * @param rows output dimension
 * @param cols input dimension, a multiple of the format's block size
 * @param data exactly {@code rows × rowBytes()} bytes
 */
public record WeightMatrix(String name, GgmlType type, int rows, int cols, MemorySegment data) {

    public WeightMatrix {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(data, "data");
        data = data.isNative() ? data.reinterpret(data.byteSize()) : data;
        if (rows <= 0 || cols <= 0) {
            throw new IllegalArgumentException(name + ": matrix dimensions must be positive, got " + rows + "x" + cols);
        }
        if (cols % type.blockSize() != 0) {
            throw new IllegalArgumentException(
                    name + ": " + type + " rows hold whole blocks of " + type.blockSize() + " elements, got " + cols);
        }
        long expected = (long) rows * type.bytesFor(cols);
        if (data.byteSize() != expected) {
            throw new IllegalArgumentException(
                    name + ": " + rows + "x" + cols + " " + type + " needs " + expected + " bytes, got " + data.byteSize());
        }
    }

    /** Bytes taken by one row. */
    public long rowBytes() {
        return type.bytesFor(cols);
    }
}
