package io.squall.kernels.custom;

import java.io.Serializable;

/**
 * A kernel over {@code x[0..n)} and {@code y[0..n)}, written in TornadoVM's programming model: a
 * static method with a {@code @Parallel} loop over {@code i < n}, no allocation, no exceptions, no
 * calls but to other such static methods and {@code Math}/{@code TornadoMath}. Give it as a method
 * reference ({@code MyKernels::softcap}); {@link CustomKernel} checks that it names a static method.
 *
 * <p>It is {@link Serializable} only so that the executor can find the method a reference names.
 */
@FunctionalInterface
public interface ElementKernel extends Serializable {

    /** Runs the kernel over the first {@code n} elements of {@code x} (usually updated in place) and {@code y}. */
    void apply(float[] x, float[] y, int n);
}
