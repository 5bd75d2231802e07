package io.squall.kernels.custom;

import java.lang.invoke.MethodHandleInfo;
import java.lang.invoke.SerializedLambda;
import java.lang.reflect.Method;
import java.util.Objects;

/**
 * A user's kernel: a TornadoVM-style {@code kernel} that the TornadoVM executor compiles for its
 * device, and the CPU {@code reference} that the host executors run (it may be the same method). Run
 * it with {@link io.squall.kernels.Kernels#run}; the engine runs one as the activation of the gated
 * feed-forward block or as a logits transform.
 *
 * @param name a short name for logs
 * @param kernel a reference to a static method {@code (float[] x, float[] y, int n)} in TornadoVM's style
 * @param reference the same computation for the CPU
 */
public record CustomKernel(String name, ElementKernel kernel, ElementKernel reference) {

    public CustomKernel {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(kernel, "kernel");
        Objects.requireNonNull(reference, "reference");
        staticMethod(kernel);
    }

    /** A kernel whose TornadoVM-style method also serves as its CPU reference. */
    public static CustomKernel of(String name, ElementKernel kernel) {
        return new CustomKernel(name, kernel, kernel);
    }

    /** The static method {@link #kernel()} names, for an executor that compiles it. */
    public Method kernelMethod() {
        return staticMethod(kernel);
    }

    /**
     * The static {@code (float[], float[], int)} method a kernel reference names.
     *
     * @throws IllegalArgumentException if the kernel is not a reference to such a method (a capturing
     *                                  lambda, an instance method or another shape)
     */
    static Method staticMethod(ElementKernel kernel) {
        SerializedLambda lambda;
        try {
            Method writeReplace = kernel.getClass().getDeclaredMethod("writeReplace");
            writeReplace.setAccessible(true);
            lambda = (SerializedLambda) writeReplace.invoke(kernel);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalArgumentException("a custom kernel must be a method reference to a static method,"
                    + " not an instance of " + kernel.getClass().getName(), e);
        }
        if (lambda.getImplMethodKind() != MethodHandleInfo.REF_invokeStatic || lambda.getCapturedArgCount() != 0
                || !lambda.getImplMethodSignature().equals("([F[FI)V")) {
            throw new IllegalArgumentException("a custom kernel must name a static method (float[], float[], int),"
                    + " got " + lambda.getImplClass() + "." + lambda.getImplMethodName() + lambda.getImplMethodSignature()
                    + " capturing " + lambda.getCapturedArgCount() + " values");
        }
        try {
            Class<?> owner = Class.forName(lambda.getImplClass().replace('/', '.'), false,
                    kernel.getClass().getClassLoader());
            return owner.getDeclaredMethod(lambda.getImplMethodName(), float[].class, float[].class, int.class);
        } catch (ReflectiveOperationException e) {
            throw new IllegalArgumentException("cannot find the kernel method " + lambda.getImplMethodName(), e);
        }
    }
}
