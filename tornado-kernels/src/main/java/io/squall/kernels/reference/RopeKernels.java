package io.squall.kernels.reference;

/** Rotary position embedding. */
public final class RopeKernels {

    private RopeKernels() {
    }

    /**
     * Rotates pairs of {@code x[b][h][·]} by the angle of position {@code positions[b]}, frequency
     * {@code i}: {@code (x0, x1) ← (x0·cos − x1·sin, x0·sin + x1·cos)} with
     * {@code cos = cosTable[pos·rotaryDim/2 + i]}. The pair is {@code (i, i + rotaryDim/2)} when
     * {@code neox}, else {@code (2i, 2i+1)}; dimensions from {@code rotaryDim} on are untouched.
     * Parallel loops: {@code b}, {@code h}.
     */
    public static void rope(float[] x, int batch, int[] positions, int heads, int headDim, int rotaryDim,
                            float[] cosTable, float[] sinTable, boolean neox) {
        int half = rotaryDim / 2;
        for (int b = 0; b < batch; b++) {
            int table = positions[b] * half;
            for (int h = 0; h < heads; h++) {
                int base = (b * heads + h) * headDim;
                for (int i = 0; i < half; i++) {
                    int i0 = neox ? base + i : base + 2 * i;
                    int i1 = neox ? i0 + half : i0 + 1;
                    float c = cosTable[table + i];
                    float s = sinTable[table + i];
                    float x0 = x[i0];
                    float x1 = x[i1];
                    x[i0] = x0 * c - x1 * s;
                    x[i1] = x0 * s + x1 * c;
                }
            }
        }
    }
}
