package io.squall.kernels.cpu;

import io.squall.kernels.GgmlType;

import java.util.EnumMap;
import java.util.Map;

/**
 * The activations a product with weights of a given format uses, as floats: rounded to 8 bits per block as the CPU
 * executor rounds them ({@link QuantizedActivations}) where that format's matmul rounds, the activations as they
 * are otherwise. Another executor that multiplies on a device passes these to its kernels, so its products use the
 * same rounded values as the CPU executor's and a greedy run gives the same tokens on both.
 *
 * <p>Not thread-safe: one instance per calling thread; the array returned is reused by the next call.
 */
public final class RoundedActivations {

    private final Map<QuantizedActivations.Scheme, QuantizedActivations> schemes =
            new EnumMap<>(QuantizedActivations.Scheme.class);

    /**
     * The first {@code n} elements of {@code x} as a product with {@code type} weights sees them: {@code x} itself
     * when the format keeps float activations, else a reused array of the rounded values. {@code n} is whole rows
     * of a matrix's columns, which are whole blocks.
     */
    public float[] of(GgmlType type, float[] x, int n) {
        QuantizedActivations.Scheme scheme = QuantizedActivations.Scheme.of(type);
        if (scheme == QuantizedActivations.Scheme.NONE) {
            return x;
        }
        QuantizedActivations rounded = schemes.computeIfAbsent(scheme, QuantizedActivations::new);
        rounded.quantize(x, n, false);
        return rounded.dequantized;
    }
}
