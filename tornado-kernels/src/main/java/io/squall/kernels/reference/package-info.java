/**
 * The reference semantics: kernels as static methods over flat arrays and weight segments in the
 * TornadoVM programming model (no allocation, no exceptions, plain counted loops; the loops a
 * device may run in parallel are named in each method's Javadoc), and
 * {@link io.squall.kernels.reference.ReferenceKernels}, which runs them single-threaded on the JVM.
 */
package io.squall.kernels.reference;
