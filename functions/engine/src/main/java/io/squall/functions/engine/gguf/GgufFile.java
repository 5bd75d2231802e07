package io.squall.functions.engine.gguf;

import io.squall.kernels.GgmlType;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A GGUF file opened for reading. The whole file is memory-mapped once; {@link #tensorData} returns
 * slices of that mapping, so weights are never copied onto the heap. Closing the file unmaps it:
 * segments obtained from it must not be used afterwards.
 *
 * <p>Thread-safety: immutable after {@link #open}; segments may be read from any thread.
 */
public final class GgufFile implements AutoCloseable {

    /** "GGUF" read as a little-endian uint32. */
    static final int MAGIC = 0x46554747;
    static final int DEFAULT_ALIGNMENT = 32;
    static final String ALIGNMENT_KEY = "general.alignment";
    /** GGML tensors have at most four dimensions. */
    static final int MAX_DIMS = 4;

    private final Path path;
    private final Arena arena;
    private final MemorySegment mapping;
    private final int version;
    private final GgufMetadata metadata;
    private final List<GgufTensor> tensors;
    private final Map<String, GgufTensor> tensorsByName;
    private final long dataStart;

    private GgufFile(Path path, Arena arena, MemorySegment mapping, int version, GgufMetadata metadata,
                     List<GgufTensor> tensors, long dataStart) {
        this.path = path;
        this.arena = arena;
        this.mapping = mapping;
        this.version = version;
        this.metadata = metadata;
        this.tensors = Collections.unmodifiableList(tensors);
        Map<String, GgufTensor> byName = new LinkedHashMap<>();
        for (GgufTensor tensor : tensors) {
            byName.put(tensor.name(), tensor);
        }
        this.tensorsByName = Collections.unmodifiableMap(byName);
        this.dataStart = dataStart;
    }

    /**
     * Maps and parses {@code path}.
     *
     * @throws GgufException if the file is missing, unreadable, truncated, corrupt or unsupported
     */
    public static GgufFile open(Path path) {
        Arena arena = Arena.ofShared();
        try {
            MemorySegment mapping;
            try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
                mapping = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size(), arena);
            }
            GgufFile file = parse(path, arena, mapping);
            return file;
        } catch (NoSuchFileException e) {
            arena.close();
            throw new GgufException(path, "no such file", e);
        } catch (IOException e) {
            arena.close();
            throw new GgufException(path, "cannot read: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    private static GgufFile parse(Path path, Arena arena, MemorySegment mapping) {
        GgufCursor in = new GgufCursor(path, mapping);
        int magic = in.readInt("magic");
        if (magic != MAGIC) {
            throw new GgufException(path, 0, String.format("not a GGUF file (magic 0x%08x, expected \"GGUF\")", magic));
        }
        int version = in.readInt("version");
        if (version == 1) {
            throw new GgufException(path, 4, "GGUF version 1 is not supported (only 2 and 3); re-convert the model");
        }
        if (version != 2 && version != 3) {
            String hint = Integer.reverseBytes(version) == 2 || Integer.reverseBytes(version) == 3
                    ? " (a big-endian GGUF file, which Squall does not read)" : "";
            throw new GgufException(path, 4, "unsupported GGUF version " + Integer.toUnsignedString(version) + hint);
        }
        long tensorCount = in.readCount("tensor count", 8 + 4 + 4 + 8 + 8);
        long metadataCount = in.readCount("metadata count", 8 + 4 + 1);

        Map<String, GgufValue> entries = new LinkedHashMap<>();
        for (long i = 0; i < metadataCount; i++) {
            long keyOffset = in.position();
            String key = in.readString("metadata key");
            GgufValue value = in.readValue(key);
            if (entries.putIfAbsent(key, value) != null) {
                throw new GgufException(path, keyOffset, "duplicate metadata key '" + key + "'");
            }
        }
        GgufMetadata metadata = new GgufMetadata(entries);
        long alignment = alignment(path, metadata, in.position());

        List<TensorInfo> infos = new ArrayList<>((int) Math.min(tensorCount, 1 << 16));
        for (long i = 0; i < tensorCount; i++) {
            infos.add(readTensorInfo(in));
        }
        long dataStart = alignUp(in.position(), alignment);
        if (dataStart > mapping.byteSize() && !infos.isEmpty()) {
            throw new GgufException(path, in.position(), "truncated: the tensor data section is missing");
        }

        List<GgufTensor> tensors = new ArrayList<>(infos.size());
        Map<String, Boolean> seen = new LinkedHashMap<>();
        for (TensorInfo info : infos) {
            if (seen.put(info.name, Boolean.TRUE) != null) {
                throw new GgufException(path, info.infoOffset, "duplicate tensor name '" + info.name + "'");
            }
            if (info.relativeOffset % alignment != 0) {
                throw new GgufException(path, info.infoOffset, "tensor '" + info.name + "' data offset "
                        + info.relativeOffset + " is not a multiple of the alignment " + alignment);
            }
            long start = dataStart + info.relativeOffset;
            if (info.relativeOffset < 0 || start < dataStart || info.byteSize > mapping.byteSize() - start) {
                throw new GgufException(path, info.infoOffset, "truncated: tensor '" + info.name + "' needs bytes ["
                        + start + ", " + (start + info.byteSize) + ") but the file has " + mapping.byteSize());
            }
            tensors.add(new GgufTensor(info.name, info.type, info.dims, start, info.byteSize));
        }
        return new GgufFile(path, arena, mapping, version, metadata, tensors, dataStart);
    }

    private record TensorInfo(String name, GgmlType type, long[] dims, long relativeOffset, long byteSize,
                              long infoOffset) {
    }

    private static TensorInfo readTensorInfo(GgufCursor in) {
        long infoOffset = in.position();
        String name = in.readString("tensor name");
        int rank = in.readInt("rank of tensor '" + name + "'");
        if (rank < 1 || rank > MAX_DIMS) {
            throw in.error(infoOffset, "tensor '" + name + "' has " + Integer.toUnsignedString(rank)
                    + " dimensions; GGML allows 1 to " + MAX_DIMS);
        }
        long[] dims = new long[rank];
        long elements = 1;
        for (int d = 0; d < rank; d++) {
            dims[d] = in.readLong("dimension " + d + " of tensor '" + name + "'");
            if (dims[d] <= 0) {
                throw in.error(infoOffset, "tensor '" + name + "' has dimension " + d + " = "
                        + Long.toUnsignedString(dims[d]));
            }
            try {
                elements = Math.multiplyExact(elements, dims[d]);
            } catch (ArithmeticException e) {
                throw in.error(infoOffset, "tensor '" + name + "' has more elements than fit in 63 bits");
            }
        }
        int typeId = in.readInt("type of tensor '" + name + "'");
        GgmlType type = GgmlType.fromId(typeId);
        if (type == null) {
            throw in.error(infoOffset, "tensor '" + name + "' has unknown GGML type id " + Integer.toUnsignedString(typeId));
        }
        if (dims[0] % type.blockSize() != 0) {
            throw in.error(infoOffset, "tensor '" + name + "' of type " + type + " has a row of " + dims[0]
                    + " elements, not a multiple of its block size " + type.blockSize());
        }
        long relativeOffset = in.readLong("data offset of tensor '" + name + "'");
        long byteSize;
        try {
            byteSize = type.bytesFor(elements);
        } catch (ArithmeticException e) {
            throw in.error(infoOffset, "tensor '" + name + "' is larger than fits in 63 bits");
        }
        return new TensorInfo(name, type, dims, relativeOffset, byteSize, infoOffset);
    }

    private static long alignment(Path path, GgufMetadata metadata, long offset) {
        if (!metadata.contains(ALIGNMENT_KEY)) {
            return DEFAULT_ALIGNMENT;
        }
        long alignment;
        try {
            alignment = metadata.getLong(ALIGNMENT_KEY);
        } catch (IllegalArgumentException e) {
            throw new GgufException(path, offset, e.getMessage());
        }
        if (alignment <= 0 || Long.bitCount(alignment) != 1) {
            throw new GgufException(path, offset, ALIGNMENT_KEY + " = " + alignment + " is not a power of two");
        }
        return alignment;
    }

    static long alignUp(long offset, long alignment) {
        return (offset + alignment - 1) / alignment * alignment;
    }

    public Path path() {
        return path;
    }

    /** The GGUF version: 2 or 3. */
    /** {@code general.name}, or the file name without extension. */
    public String modelName() {
        return metadata().findString("general.name")
                .orElseGet(() -> path().getFileName().toString().replaceFirst("\\.gguf$", ""));
    }

    public int version() {
        return version;
    }

    public GgufMetadata metadata() {
        return metadata;
    }

    /** The tensor table in file order. */
    public List<GgufTensor> tensors() {
        return tensors;
    }

    public Optional<GgufTensor> tensor(String name) {
        return Optional.ofNullable(tensorsByName.get(name));
    }

    /** Absolute offset of the tensor data section. */
    public long dataStart() {
        return dataStart;
    }

    /** The bytes of {@code tensor}: a slice of the mapping, valid until {@link #close()}. */
    public MemorySegment tensorData(GgufTensor tensor) {
        return mapping.asSlice(tensor.dataOffset(), tensor.byteSize());
    }

    /** Unmaps the file. */
    @Override
    public void close() {
        arena.close();
    }
}
