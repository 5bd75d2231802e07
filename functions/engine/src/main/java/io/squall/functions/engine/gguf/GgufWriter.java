package io.squall.functions.engine.gguf;

import io.squall.kernels.GgmlType;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Writes GGUF version 3 files. Metadata and tensors are added first; {@link #write} then streams
 * the header and each tensor's data, filling one tensor at a time so that writing a large model
 * needs memory for its largest tensor only. The file is written to a temporary sibling and moved
 * into place, so a reader never sees half a file.
 *
 * <p>Not thread-safe.
 */
public final class GgufWriter {

    private static final int VERSION = 3;

    private final Map<String, GgufValue> metadata = new LinkedHashMap<>();
    private final List<PendingTensor> tensors = new ArrayList<>();
    private final int alignment;

    private record PendingTensor(String name, GgmlType type, long[] dims, long byteSize, Consumer<MemorySegment> fill) {
    }

    /** A writer with the default 32-byte alignment. */
    public GgufWriter() {
        this(GgufFile.DEFAULT_ALIGNMENT);
    }

    /** A writer whose tensor data is aligned to {@code alignment} bytes (a power of two). */
    public GgufWriter(int alignment) {
        if (alignment <= 0 || Integer.bitCount(alignment) != 1) {
            throw new IllegalArgumentException("alignment must be a power of two, got " + alignment);
        }
        this.alignment = alignment;
        if (alignment != GgufFile.DEFAULT_ALIGNMENT) {
            metadata.put(GgufFile.ALIGNMENT_KEY, GgufValue.ofUint32(alignment));
        }
    }

    /** Adds or replaces a metadata entry. */
    public GgufWriter put(String key, GgufValue value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        if (key.equals(GgufFile.ALIGNMENT_KEY)) {
            throw new IllegalArgumentException("set the alignment through the constructor");
        }
        metadata.put(key, value);
        return this;
    }

    /** Copies every metadata entry of {@code source} except the alignment. */
    public GgufWriter putAll(GgufMetadata source) {
        source.entries().forEach((key, value) -> {
            if (!key.equals(GgufFile.ALIGNMENT_KEY)) {
                metadata.put(key, value);
            }
        });
        return this;
    }

    /**
     * Adds a tensor whose bytes {@code fill} writes into the segment it is given (exactly the
     * tensor's size, zeroed) when the file is written.
     *
     * @param dims the shape, innermost dimension first
     */
    public GgufWriter addTensor(String name, GgmlType type, long[] dims, Consumer<MemorySegment> fill) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(fill, "fill");
        if (dims.length < 1 || dims.length > GgufFile.MAX_DIMS) {
            throw new IllegalArgumentException(name + ": a tensor has 1 to " + GgufFile.MAX_DIMS + " dimensions");
        }
        long elements = 1;
        for (long dim : dims) {
            if (dim <= 0) {
                throw new IllegalArgumentException(name + ": dimensions must be positive");
            }
            elements = Math.multiplyExact(elements, dim);
        }
        if (dims[0] % type.blockSize() != 0) {
            throw new IllegalArgumentException(name + ": rows of " + type + " hold whole blocks of "
                    + type.blockSize() + " elements, got " + dims[0]);
        }
        for (PendingTensor tensor : tensors) {
            if (tensor.name.equals(name)) {
                throw new IllegalArgumentException("duplicate tensor name " + name);
            }
        }
        tensors.add(new PendingTensor(name, type, dims.clone(), type.bytesFor(elements), fill));
        return this;
    }

    /** Adds a tensor with the given bytes. */
    public GgufWriter addTensor(String name, GgmlType type, long[] dims, MemorySegment data) {
        return addTensor(name, type, dims, target -> {
            if (data.byteSize() != target.byteSize()) {
                throw new IllegalArgumentException(name + ": expected " + target.byteSize() + " bytes, got " + data.byteSize());
            }
            target.copyFrom(data);
        });
    }

    /** Writes the file, replacing {@code path} atomically. */
    public void write(Path path) {
        Path temp = path.resolveSibling(path.getFileName() + ".partial");
        try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            writeAll(channel);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + path, e);
        }
        try {
            Files.move(temp, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot move " + temp + " to " + path, e);
        }
    }

    private void writeAll(FileChannel channel) throws IOException {
        HeaderBuffer header = new HeaderBuffer();
        header.putInt(GgufFile.MAGIC);
        header.putInt(VERSION);
        header.putLong(tensors.size());
        header.putLong(metadata.size());
        metadata.forEach((key, value) -> {
            header.putString(key);
            header.putInt(value.type().id());
            header.putValue(value);
        });
        long offset = 0;
        for (PendingTensor tensor : tensors) {
            header.putString(tensor.name);
            header.putInt(tensor.dims.length);
            for (long dim : tensor.dims) {
                header.putLong(dim);
            }
            header.putInt(tensor.type.id());
            header.putLong(offset);
            offset = GgufFile.alignUp(offset + tensor.byteSize, alignment);
        }
        long dataStart = GgufFile.alignUp(header.size(), alignment);
        channel.write(header.bytes(), 0);

        long position = dataStart;
        for (PendingTensor tensor : tensors) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment data = arena.allocate(Math.max(1, tensor.byteSize), 64).asSlice(0, tensor.byteSize);
                tensor.fill.accept(data);
                ByteBuffer buffer = data.asByteBuffer();
                while (buffer.hasRemaining()) {
                    position += channel.write(buffer, position);
                }
            }
            position = GgufFile.alignUp(position, alignment);
        }
        // Pad the last tensor so the file length matches the aligned layout readers expect.
        if (position > channel.size()) {
            channel.write(ByteBuffer.allocate(1), position - 1);
        }
    }

    /** A growable little-endian buffer for the header. */
    private static final class HeaderBuffer {
        private ByteBuffer buffer = ByteBuffer.allocate(1 << 16).order(ByteOrder.LITTLE_ENDIAN);

        private void ensure(long bytes) {
            if (buffer.remaining() < bytes) {
                long needed = buffer.position() + bytes;
                if (needed > Integer.MAX_VALUE - 16) {
                    throw new IllegalStateException("GGUF header larger than 2 GiB");
                }
                int capacity = (int) Math.min(Integer.MAX_VALUE - 16, Math.max(needed, 2L * buffer.capacity()));
                ByteBuffer bigger = ByteBuffer.allocate(capacity).order(ByteOrder.LITTLE_ENDIAN);
                buffer.flip();
                bigger.put(buffer);
                buffer = bigger;
            }
        }

        void putInt(int v) {
            ensure(4);
            buffer.putInt(v);
        }

        void putLong(long v) {
            ensure(8);
            buffer.putLong(v);
        }

        void putString(String s) {
            byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
            ensure(8L + bytes.length);
            buffer.putLong(bytes.length);
            buffer.put(bytes);
        }

        void putValue(GgufValue value) {
            if (value.type() == GgufValueType.ARRAY) {
                putArray(value.elementType(), value.value());
            } else {
                putScalar(value.type(), value.value());
            }
        }

        private void putScalar(GgufValueType type, Object v) {
            switch (type) {
                case UINT8, INT8 -> { ensure(1); buffer.put((byte) ((Number) v).intValue()); }
                case UINT16, INT16 -> { ensure(2); buffer.putShort((short) ((Number) v).intValue()); }
                case UINT32, INT32 -> putInt(((Number) v).intValue());
                case UINT64, INT64 -> putLong(((Number) v).longValue());
                case FLOAT32 -> { ensure(4); buffer.putFloat(((Number) v).floatValue()); }
                case FLOAT64 -> { ensure(8); buffer.putDouble(((Number) v).doubleValue()); }
                case BOOL -> { ensure(1); buffer.put((byte) ((Boolean) v ? 1 : 0)); }
                case STRING -> putString((String) v);
                case ARRAY -> throw new IllegalArgumentException("nested arrays are written by putArray");
            }
        }

        private void putArray(GgufValueType elementType, Object array) {
            putInt(elementType.id());
            switch (array) {
                case byte[] a -> { putLong(a.length); ensure(a.length); buffer.put(a); }
                case short[] a -> { putLong(a.length); ensure(2L * a.length); for (short x : a) buffer.putShort(x); }
                case int[] a -> { putLong(a.length); ensure(4L * a.length); for (int x : a) buffer.putInt(x); }
                case long[] a -> { putLong(a.length); ensure(8L * a.length); for (long x : a) buffer.putLong(x); }
                case float[] a -> { putLong(a.length); ensure(4L * a.length); for (float x : a) buffer.putFloat(x); }
                case double[] a -> { putLong(a.length); ensure(8L * a.length); for (double x : a) buffer.putDouble(x); }
                case boolean[] a -> { putLong(a.length); ensure(a.length); for (boolean x : a) buffer.put((byte) (x ? 1 : 0)); }
                case String[] a -> { putLong(a.length); for (String x : a) putString(x); }
                case GgufValue[] a -> {
                    putLong(a.length);
                    for (GgufValue x : a) {
                        putArray(x.elementType(), x.value());
                    }
                }
                default -> throw new IllegalArgumentException("unsupported array " + array.getClass());
            }
        }

        long size() {
            return buffer.position();
        }

        ByteBuffer bytes() {
            return buffer.duplicate().flip();
        }
    }
}
