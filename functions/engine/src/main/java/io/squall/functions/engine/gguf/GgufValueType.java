package io.squall.functions.engine.gguf;

/** The value types of GGUF metadata, with their on-disk ids. */
public enum GgufValueType {
    UINT8(1),
    INT8(1),
    UINT16(2),
    INT16(2),
    UINT32(4),
    INT32(4),
    FLOAT32(4),
    BOOL(1),
    STRING(-1),
    ARRAY(-1),
    UINT64(8),
    INT64(8),
    FLOAT64(8);

    private static final GgufValueType[] BY_ID = values();

    private final int size;

    GgufValueType(int size) {
        this.size = size;
    }

    /** The on-disk id. */
    public int id() {
        return ordinal();
    }

    /** Bytes per value, or -1 for variable-length types. */
    public int size() {
        return size;
    }

    /** The type with on-disk id {@code id}, or {@code null} when unknown. */
    public static GgufValueType fromId(int id) {
        return id >= 0 && id < BY_ID.length ? BY_ID[id] : null;
    }
}
