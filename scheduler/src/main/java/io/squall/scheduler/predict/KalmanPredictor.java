package io.squall.scheduler.predict;

/**
 * A Kalman filter over a local linear trend: the state is the level and its change per interval, both drifting
 * as random walks; each interval's observation is the level plus noise. The prediction is one step ahead: level
 * plus trend. It follows a ramp without the lag of a moving average and, unlike the last value alone, does not
 * take one noisy interval at face value. Noise is relative to the level (the filter runs on the values scaled by
 * the first one observed), so one tuning fits request rates of 0.1/s and of 1,000/s alike.
 *
 * <p>Defaults: measurement noise {@value #DEFAULT_MEASUREMENT} (a 20% standard deviation per interval), level
 * drift {@value #DEFAULT_LEVEL} and trend drift {@value #DEFAULT_TREND} (in units of the scale squared).
 */
public final class KalmanPredictor implements LoadPredictor {

    static final double DEFAULT_MEASUREMENT = 0.04;
    static final double DEFAULT_LEVEL = 0.01;
    static final double DEFAULT_TREND = 0.001;

    private final double measurementNoise;
    private final double levelNoise;
    private final double trendNoise;
    private double scale = Double.NaN;
    private double level;
    private double trend;
    /** Covariance of (level, trend): p00, p01 = p10, p11. */
    private double p00;
    private double p01;
    private double p11;

    public KalmanPredictor(double measurementNoise, double levelNoise, double trendNoise) {
        if (!(measurementNoise > 0) || !(levelNoise >= 0) || !(trendNoise >= 0)) {
            throw new IllegalArgumentException("Kalman noises must be positive (measurement) and non-negative (drifts)");
        }
        this.measurementNoise = measurementNoise;
        this.levelNoise = levelNoise;
        this.trendNoise = trendNoise;
    }

    public static KalmanPredictor defaults() {
        return new KalmanPredictor(DEFAULT_MEASUREMENT, DEFAULT_LEVEL, DEFAULT_TREND);
    }

    @Override
    public void observe(double value) {
        if (Double.isNaN(value)) {
            return;
        }
        if (Double.isNaN(scale)) {
            scale = Math.max(Math.abs(value), 1e-9);
            level = value / scale;
            trend = 0;
            p00 = 1;
            p01 = 0;
            p11 = 0.1;
            return;
        }
        double z = value / scale;
        // predict: x = F x, P = F P Fᵀ + Q with F = [[1, 1], [0, 1]]
        double predictedLevel = level + trend;
        double q00 = p00 + 2 * p01 + p11 + levelNoise;
        double q01 = p01 + p11;
        double q11 = p11 + trendNoise;
        // update with H = [1, 0]
        double innovation = z - predictedLevel;
        double s = q00 + measurementNoise;
        double k0 = q00 / s;
        double k1 = q01 / s;
        level = predictedLevel + k0 * innovation;
        trend = trend + k1 * innovation;
        p00 = (1 - k0) * q00;
        p01 = (1 - k0) * q01;
        p11 = q11 - k1 * q01;
    }

    @Override
    public double predict() {
        return Double.isNaN(scale) ? Double.NaN : Math.max(0, (level + trend) * scale);
    }
}
