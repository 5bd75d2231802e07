/**
 * Kernels users write: a TornadoVM-style static method ({@link io.squall.kernels.custom.ElementKernel})
 * with its CPU reference, as a {@link io.squall.kernels.custom.CustomKernel} that runs on whichever
 * executor is active ({@link io.squall.kernels.Kernels#run}). The engine takes one as the activation of
 * its gated feed-forward block or as a transform of the logits before sampling.
 */
package io.squall.kernels.custom;
