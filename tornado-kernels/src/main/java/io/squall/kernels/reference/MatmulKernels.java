package io.squall.kernels.reference;

import io.squall.kernels.format.LittleEndian;
import io.squall.kernels.format.Q4_0Codec;
import io.squall.kernels.format.Q4_KCodec;
import io.squall.kernels.format.Q6_KCodec;
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

    /** Per sub-block {@code s}: {@code d·scale[s]·Σ q·x − dmin·min[s]·Σ x}. */
    public static void matmulQ4_K(MemorySegment w, int rows, int cols, float[] x, float[] out, int batch) {
        int blocks = cols / Q4_KCodec.BLOCK_SIZE;
        for (int r = 0; r < rows; r++) {
            for (int b = 0; b < batch; b++) {
                float sum = 0f;
                for (int i = 0; i < blocks; i++) {
                    long block = ((long) r * blocks + i) * Q4_KCodec.BLOCK_BYTES;
                    float d = LittleEndian.half(w, block);
                    float dmin = LittleEndian.half(w, block + Q4_KCodec.DMIN_OFFSET);
                    for (int s = 0; s < 8; s++) {
                        int xi = b * cols + i * Q4_KCodec.BLOCK_SIZE + 32 * s;
                        float qx = 0f;
                        float xs = 0f;
                        for (int l = 0; l < 32; l++) {
                            qx += Q4_KCodec.quant(w, block, 32 * s + l) * x[xi + l];
                            xs += x[xi + l];
                        }
                        sum += d * Q4_KCodec.scale(w, block, s) * qx - dmin * Q4_KCodec.min(w, block, s) * xs;
                    }
                }
                out[b * rows + r] = sum;
            }
        }
    }

    /** Per 16-element sub-block {@code s}: {@code d·scales[s]·Σ q·x}. */
    public static void matmulQ6_K(MemorySegment w, int rows, int cols, float[] x, float[] out, int batch) {
        int blocks = cols / Q6_KCodec.BLOCK_SIZE;
        for (int r = 0; r < rows; r++) {
            for (int b = 0; b < batch; b++) {
                float sum = 0f;
                for (int i = 0; i < blocks; i++) {
                    long block = ((long) r * blocks + i) * Q6_KCodec.BLOCK_BYTES;
                    float d = LittleEndian.half(w, block + Q6_KCodec.D_OFFSET);
                    for (int s = 0; s < 16; s++) {
                        int xi = b * cols + i * Q6_KCodec.BLOCK_SIZE + 16 * s;
                        float qx = 0f;
                        for (int l = 0; l < 16; l++) {
                            qx += Q6_KCodec.quant(w, block, 16 * s + l) * x[xi + l];
                        }
                        sum += d * Q6_KCodec.scale(w, block, s) * qx;
                    }
                }
                out[b * rows + r] = sum;
            }
        }
    }
}
