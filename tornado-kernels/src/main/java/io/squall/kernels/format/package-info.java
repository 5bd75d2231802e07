/**
 * GGML storage formats, byte for byte: one codec per format with its block layout as constants, a
 * scalar dequantizer and a quantizer. The 32-element formats that differ only in header, fifth bits
 * and bias (Q4_0, Q4_1, Q5_0, Q5_1) are the constants of one layout record,
 * {@link io.squall.kernels.format.NibbleBlock}; Q5_K reuses Q4_K's header and IQ4_XS IQ4_NL's grid.
 * Blocks are little-endian, as in GGUF files. {@link io.squall.kernels.format.GgmlCodec} dispatches on
 * {@link io.squall.kernels.GgmlType}.
 */
package io.squall.kernels.format;
