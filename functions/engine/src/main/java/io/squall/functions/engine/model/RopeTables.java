package io.squall.functions.engine.model;

/**
 * Precomputed rotary embedding angles: {@code cos[p·half + i]} and {@code sin[p·half + i]} for
 * position {@code p} and frequency {@code i < half = ropeDim/2}, where the angle is
 * {@code p · scale · theta^(-2i/ropeDim) / factor_i} (RoFormer, eq. 15; {@code factor_i} are Llama 3's
 * frequency divisors, 1 without them; {@code scale} is linear position scaling).
 */
final class RopeTables {

    final float[] cos;
    final float[] sin;

    RopeTables(ModelConfig config, float[] frequencyFactors, int positions) {
        int half = config.ropeDim() / 2;
        cos = new float[positions * half];
        sin = new float[positions * half];
        double[] frequencies = new double[half];
        for (int i = 0; i < half; i++) {
            double frequency = Math.pow(config.ropeTheta(), -2.0 * i / config.ropeDim());
            if (frequencyFactors != null) {
                frequency /= frequencyFactors[i];
            }
            frequencies[i] = frequency * config.ropePositionScale();
        }
        for (int p = 0; p < positions; p++) {
            for (int i = 0; i < half; i++) {
                double angle = p * frequencies[i];
                cos[p * half + i] = (float) Math.cos(angle);
                sin[p * half + i] = (float) Math.sin(angle);
            }
        }
    }
}
