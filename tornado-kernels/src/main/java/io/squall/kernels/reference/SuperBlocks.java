package io.squall.kernels.reference;

import io.squall.kernels.GgmlType;
import io.squall.kernels.format.IQ4_XSCodec;
import io.squall.kernels.format.LittleEndian;
import io.squall.kernels.format.Q2_KCodec;
import io.squall.kernels.format.Q3_KCodec;
import io.squall.kernels.format.Q4_KCodec;
import io.squall.kernels.format.Q5_KCodec;
import io.squall.kernels.format.Q6_KCodec;

import java.lang.foreign.MemorySegment;

/**
 * What the super-block formats share, read element by element from their codecs: an element of
 * sub-block {@code s} is {@code scale(s) · quant(i) − min(s)}, where {@code scale} and {@code min} are
 * the super-block's f16 factors times the sub-block's quantized levels, computed as ggml does
 * ({@code d * sc} in float).
 */
final class SuperBlocks {

    /** Elements per super-block. */
    static final int SIZE = 256;

    private SuperBlocks() {
    }

    /** Elements per sub-block: 16 for Q2_K, Q3_K and Q6_K, 32 for Q4_K, Q5_K and IQ4_XS. */
    static int subBlockSize(GgmlType type) {
        return switch (type) {
            case Q2_K, Q3_K, Q6_K -> 16;
            case Q4_K, Q5_K, IQ4_XS -> 32;
            default -> throw new IllegalArgumentException("not a super-block format: " + type);
        };
    }

    /** The integer level of element {@code i} (0..255), before scaling. */
    static int quant(GgmlType type, MemorySegment w, long block, int i) {
        return switch (type) {
            case Q2_K -> Q2_KCodec.quant(w, block, i);
            case Q3_K -> Q3_KCodec.quant(w, block, i);
            case Q4_K -> Q4_KCodec.quant(w, block, i);
            case Q5_K -> Q5_KCodec.quant(w, block, i);
            case Q6_K -> Q6_KCodec.quant(w, block, i);
            case IQ4_XS -> IQ4_XSCodec.quant(w, block, i);
            default -> throw new IllegalArgumentException("not a super-block format: " + type);
        };
    }

    /** The effective scale of sub-block {@code s}. */
    static float scale(GgmlType type, MemorySegment w, long block, int s) {
        return switch (type) {
            case Q2_K -> LittleEndian.half(w, block + Q2_KCodec.D_OFFSET) * Q2_KCodec.scale(w, block, s);
            case Q3_K -> LittleEndian.half(w, block + Q3_KCodec.D_OFFSET) * Q3_KCodec.scale(w, block, s);
            case Q4_K, Q5_K -> LittleEndian.half(w, block) * Q4_KCodec.scale(w, block, s);
            case Q6_K -> LittleEndian.half(w, block + Q6_KCodec.D_OFFSET) * Q6_KCodec.scale(w, block, s);
            case IQ4_XS -> LittleEndian.half(w, block) * IQ4_XSCodec.scale(w, block, s);
            default -> throw new IllegalArgumentException("not a super-block format: " + type);
        };
    }

    /** The effective min of sub-block {@code s}, subtracted from every element; 0 for the symmetric formats. */
    static float min(GgmlType type, MemorySegment w, long block, int s) {
        return switch (type) {
            case Q2_K -> LittleEndian.half(w, block + Q2_KCodec.DMIN_OFFSET) * Q2_KCodec.min(w, block, s);
            case Q4_K, Q5_K -> LittleEndian.half(w, block + Q4_KCodec.DMIN_OFFSET) * Q4_KCodec.min(w, block, s);
            default -> 0f;
        };
    }
}
