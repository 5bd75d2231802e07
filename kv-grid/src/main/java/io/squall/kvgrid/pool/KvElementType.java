package io.squall.kvgrid.pool;

/**
 * The element type of stored keys and values. Only 32-bit floats for now; a 16-bit type is one more
 * constant here, since every size in {@link KvLayout} is derived from {@link #bytes()}.
 */
public enum KvElementType {
    /** IEEE 754 binary32, 4 bytes. */
    F32(4);

    private final int bytes;

    KvElementType(int bytes) {
        this.bytes = bytes;
    }

    /** Size of one element in bytes. */
    public int bytes() {
        return bytes;
    }
}
