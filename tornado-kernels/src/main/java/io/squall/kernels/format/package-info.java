/**
 * GGML storage formats, byte for byte: one codec class per format with its block layout as
 * constants, a scalar dequantizer and (where Squall writes the format) a quantizer. Blocks are
 * little-endian, as in GGUF files. {@link io.squall.kernels.format.GgmlCodec} dispatches on
 * {@link io.squall.kernels.GgmlType}.
 */
package io.squall.kernels.format;
