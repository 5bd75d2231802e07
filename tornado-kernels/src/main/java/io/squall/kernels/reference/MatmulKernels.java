package io.squall.kernels.reference;

import io.squall.kernels.GgmlType;
import io.squall.kernels.format.IQ4_NLCodec;
import io.squall.kernels.format.LittleEndian;
import io.squall.kernels.format.NibbleBlock;
import io.squall.kernels.format.Q4_0Codec;
import io.squall.kernels.format.Q8_0Codec;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Matrix times batch of vectors, one kernel per weight format, reading the quantized blocks in
 * place: {@code out[b·rows + r] = Σ_c W[r][c] · x[b·cols + c]}. The weight segment holds
 * {@code rows} rows of {@code cols} elements, row-major. Parallel loops: {@code r} and {@code b}.
 */
public final class MatmulKernels {

    private MatmulKernels() {
    }

    public static void matmulF32(MemorySegment w, int rows, int cols, float[] x, float[] out, int batch) {
        for (int r = 0; r < rows; r++) {
            for (int b = 0; b < batch; b++) {
                float sum = 0f;
                long row = (long) r * cols * 4;
                for (int c = 0; c < cols; c++) {
                    sum += w.get(LittleEndian.FLOAT, row + 4L * c) * x[b * cols + c];
                }
                out[b * rows + r] = sum;
            }
        }
    }

    public static void matmulF16(MemorySegment w, int rows, int cols, float[] x, float[] out, int batch) {
        for (int r = 0; r < rows; r++) {
            for (int b = 0; b < batch; b++) {
                float sum = 0f;
                long row = (long) r * cols * 2;
                for (int c = 0; c < cols; c++) {
                    sum += LittleEndian.half(w, row + 2L * c) * x[b * cols + c];
                }
                out[b * rows + r] = sum;
            }
        }
    }

    public static void matmulBF16(MemorySegment w, int rows, int cols, float[] x, float[] out, int batch) {
        for (int r = 0; r < rows; r++) {
            for (int b = 0; b < batch; b++) {
                float sum = 0f;
                long row = (long) r * cols * 2;
                for (int c = 0; c < cols; c++) {
                    sum += Float.intBitsToFloat(w.get(LittleEndian.SHORT, row + 2L * c) << 16) * x[b * cols + c];
                }
                out[b * rows + r] = sum;
            }
        }
    }

    /** Per block: {@code d · Σ_j qs[j] · x[j]}. */
    public static void matmulQ8_0(MemorySegment w, int rows, int cols, float[] x, float[] out, int batch) {
        int blocks = cols / Q8_0Codec.BLOCK_SIZE;
        for (int r = 0; r < rows; r++) {
            for (int b = 0; b < batch; b++) {
                float sum = 0f;
                for (int i = 0; i < blocks; i++) {
                    long block = ((long) r * blocks + i) * Q8_0Codec.BLOCK_BYTES;
                    int xi = b * cols + i * Q8_0Codec.BLOCK_SIZE;
                    float part = 0f;
                    for (int j = 0; j < Q8_0Codec.BLOCK_SIZE; j++) {
                        part += w.get(ValueLayout.JAVA_BYTE, block + Q8_0Codec.QS_OFFSET + j) * x[xi + j];
                    }
                    sum += LittleEndian.half(w, block) * part;
                }
                out[b * rows + r] = sum;
            }
        }
    }

    /** Per block: {@code d · Σ_j (lo_j − 8) · x[j] + (hi_j − 8) · x[j+16]}. */
    public static void matmulQ4_0(MemorySegment w, int rows, int cols, float[] x, float[] out, int batch) {
        int blocks = cols / Q4_0Codec.BLOCK_SIZE;
        for (int r = 0; r < rows; r++) {
            for (int b = 0; b < batch; b++) {
                float sum = 0f;
                for (int i = 0; i < blocks; i++) {
                    long block = ((long) r * blocks + i) * Q4_0Codec.BLOCK_BYTES;
                    int xi = b * cols + i * Q4_0Codec.BLOCK_SIZE;
                    float part = 0f;
                    for (int j = 0; j < 16; j++) {
                        int q = LittleEndian.ubyte(w, block + Q4_0Codec.QS_OFFSET + j);
                        part += ((q & 0x0F) - 8) * x[xi + j] + ((q >>> 4) - 8) * x[xi + j + 16];
                    }
                    sum += LittleEndian.half(w, block) * part;
                }
                out[b * rows + r] = sum;
            }
        }
    }

    /**
     * Q4_1, Q5_0, Q5_1 and IQ4_NL, the formats of {@link NibbleBlock}'s layout: per block
     * {@code d · Σ_j v_j · x[j] + m · Σ_j x[j]}, where {@code v_j} is {@code level − bias}, or
     * {@code grid[level]} when {@code grid} is not null (IQ4_NL's {@link IQ4_NLCodec#VALUES}).
     */
    public static void matmulNibble(NibbleBlock layout, int[] grid, MemorySegment w, int rows, int cols, float[] x,
                                    float[] out, int batch) {
        int blocks = cols / NibbleBlock.SIZE;
        for (int r = 0; r < rows; r++) {
            for (int b = 0; b < batch; b++) {
                float sum = 0f;
                for (int i = 0; i < blocks; i++) {
                    long block = ((long) r * blocks + i) * layout.blockBytes();
                    int xi = b * cols + i * NibbleBlock.SIZE;
                    float qx = 0f;
                    float xs = 0f;
                    for (int j = 0; j < NibbleBlock.SIZE; j++) {
                        int level = layout.level(w, block, j);
                        qx += (grid != null ? grid[level] : level - layout.bias()) * x[xi + j];
                        xs += x[xi + j];
                    }
                    sum += layout.d(w, block) * qx + layout.min(w, block) * xs;
                }
                out[b * rows + r] = sum;
            }
        }
    }

    /**
     * The K-quants (Q2_K, Q3_K, Q4_K, Q5_K, Q6_K) and IQ4_XS: super-blocks of 256 elements in
     * sub-blocks of 16 or 32, each with its own scale and (Q2_K, Q4_K, Q5_K) min; per sub-block
     * {@code s}: {@code scale_s · Σ q·x − min_s · Σ x}, with the effective {@code scale_s} and
     * {@code min_s} (super-block factor times the sub-block's level) of {@link SuperBlocks}.
     */
    public static void matmulSuperBlock(GgmlType type, MemorySegment w, int rows, int cols, float[] x, float[] out,
                                        int batch) {
        int blocks = cols / SuperBlocks.SIZE;
        int sub = SuperBlocks.subBlockSize(type);
        for (int r = 0; r < rows; r++) {
            for (int b = 0; b < batch; b++) {
                float sum = 0f;
                for (int i = 0; i < blocks; i++) {
                    long block = ((long) r * blocks + i) * type.blockBytes();
                    for (int s = 0; s < SuperBlocks.SIZE / sub; s++) {
                        int xi = b * cols + i * SuperBlocks.SIZE + sub * s;
                        float qx = 0f;
                        float xs = 0f;
                        for (int l = 0; l < sub; l++) {
                            qx += SuperBlocks.quant(type, w, block, sub * s + l) * x[xi + l];
                            xs += x[xi + l];
                        }
                        sum += SuperBlocks.scale(type, w, block, s) * qx - SuperBlocks.min(type, w, block, s) * xs;
                    }
                }
                out[b * rows + r] = sum;
            }
        }
    }
}
