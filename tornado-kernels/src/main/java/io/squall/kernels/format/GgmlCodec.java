package io.squall.kernels.format;

import io.squall.kernels.GgmlType;
import io.squall.kernels.WeightMatrix;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Dequantizes and quantizes runs of elements in any format Squall computes with
 * ({@link GgmlType#isMatmulSupported()}). Runs are whole blocks; byte offsets point at a block start.
 *
 * <p>Stateless and thread-safe. These are the scalar codecs; kernels read blocks in place instead.
 */
public final class GgmlCodec {

    private GgmlCodec() {
    }

    /**
     * Writes {@code count} elements, stored in {@code type} from byte {@code offset} of {@code src},
     * as floats into {@code dst[dstOffset .. dstOffset+count)}.
     *
     * @throws IllegalArgumentException if the format is unsupported or {@code count} is not whole blocks
     */
    public static void dequantize(GgmlType type, MemorySegment src, long offset, float[] dst, int dstOffset, int count) {
        long bytes = checkRun(type, count);
        Objects.checkFromIndexSize(offset, bytes, src.byteSize());
        Objects.checkFromIndexSize(dstOffset, count, dst.length);
        switch (type) {
            case F32 -> MemorySegment.copy(src, LittleEndian.FLOAT, offset, dst, dstOffset, count);
            case F16 -> Float16Codec.dequantize(src, offset, dst, dstOffset, count);
            case BF16 -> BFloat16Codec.dequantize(src, offset, dst, dstOffset, count);
            case Q8_0 -> Q8_0Codec.dequantize(src, offset, dst, dstOffset, count);
            case Q4_0 -> NibbleBlock.Q4_0.dequantize(src, offset, dst, dstOffset, count);
            case Q4_1 -> NibbleBlock.Q4_1.dequantize(src, offset, dst, dstOffset, count);
            case Q5_0 -> NibbleBlock.Q5_0.dequantize(src, offset, dst, dstOffset, count);
            case Q5_1 -> NibbleBlock.Q5_1.dequantize(src, offset, dst, dstOffset, count);
            case IQ4_NL -> IQ4_NLCodec.dequantize(src, offset, dst, dstOffset, count);
            case Q2_K -> Q2_KCodec.dequantize(src, offset, dst, dstOffset, count);
            case Q3_K -> Q3_KCodec.dequantize(src, offset, dst, dstOffset, count);
            case Q4_K -> Q4_KCodec.dequantize(src, offset, dst, dstOffset, count);
            case Q5_K -> Q5_KCodec.dequantize(src, offset, dst, dstOffset, count);
            case Q6_K -> Q6_KCodec.dequantize(src, offset, dst, dstOffset, count);
            case IQ4_XS -> IQ4_XSCodec.dequantize(src, offset, dst, dstOffset, count);
            default -> throw new IllegalArgumentException("no codec for " + type);
        }
    }

    /**
     * Encodes {@code src[srcOffset .. srcOffset+count)} in {@code type} at byte {@code offset} of
     * {@code dst}: F32 exactly, F16/BF16 rounded to nearest even, Q8_0/Q4_0/Q4_1/Q5_0/Q5_1 as ggml's
     * reference quantizers, the K-quants and IQ4 formats with the single-pass encoders of their codecs
     * (valid encodings, not bit-identical with llama.cpp's searches).
     *
     * @throws IllegalArgumentException if the format is unsupported or {@code count} is not whole blocks
     */
    public static void quantize(GgmlType type, float[] src, int srcOffset, int count, MemorySegment dst, long offset) {
        long bytes = checkRun(type, count);
        Objects.checkFromIndexSize(srcOffset, count, src.length);
        Objects.checkFromIndexSize(offset, bytes, dst.byteSize());
        switch (type) {
            case F32 -> MemorySegment.copy(src, srcOffset, dst, LittleEndian.FLOAT, offset, count);
            case F16 -> Float16Codec.quantize(src, srcOffset, count, dst, offset);
            case BF16 -> BFloat16Codec.quantize(src, srcOffset, count, dst, offset);
            case Q8_0 -> Q8_0Codec.quantize(src, srcOffset, count, dst, offset);
            case Q4_0 -> NibbleBlock.Q4_0.quantize(src, srcOffset, count, dst, offset);
            case Q4_1 -> NibbleBlock.Q4_1.quantize(src, srcOffset, count, dst, offset);
            case Q5_0 -> NibbleBlock.Q5_0.quantize(src, srcOffset, count, dst, offset);
            case Q5_1 -> NibbleBlock.Q5_1.quantize(src, srcOffset, count, dst, offset);
            case IQ4_NL -> IQ4_NLCodec.quantize(src, srcOffset, count, dst, offset);
            case Q2_K -> Q2_KCodec.quantize(src, srcOffset, count, dst, offset);
            case Q3_K -> Q3_KCodec.quantize(src, srcOffset, count, dst, offset);
            case Q4_K -> Q4_KCodec.quantize(src, srcOffset, count, dst, offset);
            case Q5_K -> Q5_KCodec.quantize(src, srcOffset, count, dst, offset);
            case Q6_K -> Q6_KCodec.quantize(src, srcOffset, count, dst, offset);
            case IQ4_XS -> IQ4_XSCodec.quantize(src, srcOffset, count, dst, offset);
            default -> throw new IllegalArgumentException("no codec for " + type);
        }
    }

    /**
     * A {@code rows × cols} weight matrix encoding the row-major {@code values} in {@code type}, in
     * 64-byte aligned off-heap memory that the garbage collector frees with the matrix.
     *
     * @throws IllegalArgumentException if {@code values.length != rows·cols} or the shape does not fit the format
     */
    public static WeightMatrix encode(String name, GgmlType type, int rows, int cols, float[] values) {
        if ((long) rows * cols != values.length) {
            throw new IllegalArgumentException(name + ": " + rows + "x" + cols + " needs " + ((long) rows * cols)
                    + " values, got " + values.length);
        }
        long rowBytes = type.bytesFor(cols);
        MemorySegment data = Arena.ofAuto().allocate(rows * rowBytes, 64);
        for (int r = 0; r < rows; r++) {
            quantize(type, values, r * cols, cols, data, r * rowBytes);
        }
        return new WeightMatrix(name, type, rows, cols, data);
    }

    private static long checkRun(GgmlType type, int count) {
        if (!type.isMatmulSupported()) {
            throw new IllegalArgumentException("no codec for " + type);
        }
        return type.bytesFor(count);
    }
}
