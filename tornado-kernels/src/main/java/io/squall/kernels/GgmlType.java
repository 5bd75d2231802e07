package io.squall.kernels;

/**
 * Storage formats of GGML tensors, with the ids GGUF files use.
 *
 * <p>A format stores elements in blocks: {@link #blockSize()} elements take {@link #blockBytes()}
 * bytes. Every known GGML id is listed so a reader can size any tensor; {@link #isMatmulSupported()}
 * says which ones Squall's kernels compute with.
 */
public enum GgmlType {
    F32(0, 1, 4),
    F16(1, 1, 2),
    Q4_0(2, 32, 18),
    Q4_1(3, 32, 20),
    Q5_0(6, 32, 22),
    Q5_1(7, 32, 24),
    Q8_0(8, 32, 34),
    Q8_1(9, 32, 36),
    Q2_K(10, 256, 84),
    Q3_K(11, 256, 110),
    Q4_K(12, 256, 144),
    Q5_K(13, 256, 176),
    Q6_K(14, 256, 210),
    Q8_K(15, 256, 292),
    IQ2_XXS(16, 256, 66),
    IQ2_XS(17, 256, 74),
    IQ3_XXS(18, 256, 98),
    IQ1_S(19, 256, 50),
    IQ4_NL(20, 32, 18),
    IQ3_S(21, 256, 110),
    IQ2_S(22, 256, 82),
    IQ4_XS(23, 256, 136),
    I8(24, 1, 1),
    I16(25, 1, 2),
    I32(26, 1, 4),
    I64(27, 1, 8),
    F64(28, 1, 8),
    IQ1_M(29, 256, 56),
    BF16(30, 1, 2);

    private static final GgmlType[] BY_ID = new GgmlType[64];

    static {
        for (GgmlType type : values()) {
            BY_ID[type.id] = type;
        }
    }

    private final int id;
    private final int blockSize;
    private final int blockBytes;

    GgmlType(int id, int blockSize, int blockBytes) {
        this.id = id;
        this.blockSize = blockSize;
        this.blockBytes = blockBytes;
    }

    /** The id GGUF files store for this format. */
    public int id() {
        return id;
    }

    /** Elements per block. */
    public int blockSize() {
        return blockSize;
    }

    /** Bytes per block. */
    public int blockBytes() {
        return blockBytes;
    }

    /**
     * Bytes taken by {@code elements} elements, which must be a multiple of the block size.
     *
     * @throws IllegalArgumentException if {@code elements} is negative or not a whole number of blocks
     */
    public long bytesFor(long elements) {
        if (elements < 0 || elements % blockSize != 0) {
            throw new IllegalArgumentException(
                    name() + " stores whole blocks of " + blockSize + " elements, not " + elements);
        }
        return Math.multiplyExact(elements / blockSize, (long) blockBytes);
    }

    /** Whether Squall's matmul kernels read this format. */
    public boolean isMatmulSupported() {
        return switch (this) {
            case F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, IQ4_NL, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_XS -> true;
            default -> false;
        };
    }

    /** The formats Squall computes with, comma-separated in id order, for error messages. */
    public static String supportedNames() {
        StringBuilder names = new StringBuilder();
        for (GgmlType type : values()) {
            if (type.isMatmulSupported()) {
                names.append(names.isEmpty() ? "" : ", ").append(type.name());
            }
        }
        return names.toString();
    }

    /** The format with GGUF id {@code id}, or {@code null} when the id is unknown. */
    public static GgmlType fromId(int id) {
        return id >= 0 && id < BY_ID.length ? BY_ID[id] : null;
    }
}
