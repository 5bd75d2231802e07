/**
 * The kernel API every other module codes against: weight formats ({@link io.squall.kernels.GgmlType}),
 * weight tensors ({@link io.squall.kernels.WeightMatrix}) and the operations of a forward pass
 * ({@link io.squall.kernels.Kernels}, whose {@code best()} picks an implementation).
 *
 * <p>Sub-packages: {@code format} (GGML block layouts and codecs), {@code reference} (the static,
 * TornadoVM-style kernels that define the semantics) and {@code cpu} (the Vector API executor).
 */
package io.squall.kernels;
