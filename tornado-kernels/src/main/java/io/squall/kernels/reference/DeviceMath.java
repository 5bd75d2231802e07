package io.squall.kernels.reference;

/**
 * The scalar pieces that the reference kernels and the TornadoVM device kernels share, written so
 * that TornadoVM compiles them as they are: integer and float arithmetic only, no
 * {@code Float.intBitsToFloat} or half-precision types (OpenCL devices without {@code cl_khr_fp16},
 * such as PoCL, have none). Every method is static, allocation-free and branch-light.
 */
public final class DeviceMath {

    /** 2<sup>-25</sup>: the weight of the least significant mantissa bit of a half with exponent 1, over 1024. */
    private static final float TWO_TO_MINUS_25 = 2.9802322387695312e-8f;

    private DeviceMath() {
    }

    /**
     * An IEEE 754 binary16 value, given its 16 bits (the low 16 of {@code bits}), widened to float
     * exactly for every finite value: {@code (1024 + m) · 2^(e − 25)} for normal exponents,
     * {@code m · 2^−24} for subnormals. Exponent 31 (infinities, NaN) is not decoded, as GGML weight
     * scales never hold it.
     */
    public static float halfToFloat(int bits) {
        int exponent = (bits >> 10) & 0x1F;
        int mantissa = bits & 0x3FF;
        float magnitude = exponent == 0
                ? mantissa * (2f * TWO_TO_MINUS_25)
                : (1024 + mantissa) * ((float) (1 << exponent) * TWO_TO_MINUS_25);
        return (bits & 0x8000) != 0 ? -magnitude : magnitude;
    }

    /** The half stored little-endian at {@code lo}, {@code hi} (two signed bytes), widened to float. */
    public static float halfToFloat(byte lo, byte hi) {
        return halfToFloat((lo & 0xFF) | ((hi & 0xFF) << 8));
    }

    /** SiLU: {@code g / (1 + e^−g)}. */
    public static float silu(float g) {
        return g / (1f + (float) Math.exp(-g));
    }

    /** The RMS norm's scale for a row whose squares sum to {@code sumOfSquares}: {@code 1/sqrt(mean + eps)}. */
    public static float rmsScale(float sumOfSquares, int dim, float eps) {
        return (float) (1.0 / Math.sqrt(sumOfSquares / dim + eps));
    }
}
