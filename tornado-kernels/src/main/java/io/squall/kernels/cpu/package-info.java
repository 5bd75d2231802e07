/**
 * The CPU executor: {@link io.squall.kernels.cpu.CpuKernels} runs the reference semantics with the
 * Vector API ({@code jdk.incubator.vector}) at the preferred species, parallelised over output rows
 * (and attention heads) on a fixed {@link io.squall.kernels.cpu.WorkerPool}.
 *
 * <p>Before a product with Q8_0, IQ4_NL, Q2_K to Q6_K or IQ4_XS weights (and Q4_0 where vectors are 256 bits; with
 * 512-bit vectors its float dot is faster) the activations are rounded to 8 bits per block as llama.cpp rounds them
 * ({@link io.squall.kernels.cpu.QuantizedActivations}); one activation row then takes integer dot products that read
 * the weight blocks in place ({@link io.squall.kernels.cpu.IntDots}: 256-bit vectors, 512-bit for Q8_0, Q2_K to Q6_K
 * and IQ4_XS where the machine has them), and larger batches the tiled path below over the same rounded values.
 *
 * <p>For one activation row, Q4_0, Q4_K and Q6_K matrices the executor is {@linkplain
 * io.squall.kernels.Kernels#prepare prepared} with are held in a layout of its own as well ({@link
 * io.squall.kernels.cpu.RepackedWeights}): eight rows interleaved ({@link io.squall.kernels.cpu.InterleavedRows}), whose
 * one-row product lands eight rows' sums in one vector. At one activation row, F32, Q8_0 and interleaved matrices are read as four streams at once (rows from four quarters of
 * the matrix), which keeps more cache misses in flight than one row after the other.
 *
 * <p>Otherwise matmul has two paths. One activation row (decode): a fused dot product per weight row that
 * reads F32, Q8_0 and Q4_0 ({@link io.squall.kernels.cpu.FusedDots}) and Q3_K, Q4_K, Q5_K, Q6_K and
 * IQ4_XS ({@link io.squall.kernels.cpu.KQuantDots}) blocks in place with 16 float lanes; the other
 * formats, and every format with 8 lanes, decode one row into a per-thread L1-sized buffer first. Several activation rows
 * (prefill, batches): weight rows are decoded once into a per-thread buffer ({@link io.squall.kernels.cpu.RowDecoder})
 * and multiplied with every activation row by register tiles ({@link io.squall.kernels.cpu.TiledMatmul}): four rows
 * at a time by a 4×4 micro-kernel, or from 32 activation rows on (with 512-bit vectors) eight rows at a time
 * broadcast into activation rows laid out by column ({@link io.squall.kernels.cpu.ColumnActivations}).
 */
package io.squall.kernels.cpu;
