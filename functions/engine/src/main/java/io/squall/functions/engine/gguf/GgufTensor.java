package io.squall.functions.engine.gguf;

import io.squall.kernels.GgmlType;

import java.util.Arrays;

/**
 * One entry of a GGUF file's tensor table.
 *
 * @param name the tensor's name, e.g. {@code blk.0.attn_q.weight}
 * @param type its storage format
 * @param dims its shape, innermost (contiguous) dimension first, as GGML orders them
 * @param dataOffset absolute byte offset of its data in the file
 * @param byteSize bytes its data takes
 */
public record GgufTensor(String name, GgmlType type, long[] dims, long dataOffset, long byteSize) {

    public GgufTensor {
        dims = dims.clone();
    }

    /** Number of elements. */
    public long elementCount() {
        long count = 1;
        for (long dim : dims) {
            count *= dim;
        }
        return count;
    }

    @Override
    public long[] dims() {
        return dims.clone();
    }

    /** Dimension {@code i}, or 1 past the tensor's rank. */
    public long dim(int i) {
        return i < dims.length ? dims[i] : 1;
    }

    public int rank() {
        return dims.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof GgufTensor t && name.equals(t.name) && type == t.type && Arrays.equals(dims, t.dims)
                && dataOffset == t.dataOffset && byteSize == t.byteSize;
    }

    @Override
    public int hashCode() {
        return name.hashCode() * 31 + Arrays.hashCode(dims);
    }

    @Override
    public String toString() {
        return name + " " + type + " " + Arrays.toString(dims);
    }
}
