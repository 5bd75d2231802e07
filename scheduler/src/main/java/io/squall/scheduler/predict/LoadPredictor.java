package io.squall.scheduler.predict;

/**
 * Predicts the next interval's value of one load figure (request rate, input length, output length) from the
 * values observed so far. Not thread-safe: one planner thread observes and predicts.
 */
public interface LoadPredictor {

    /** The value of the interval that just ended; NaN (no traffic to measure) is ignored. */
    void observe(double value);

    /** The next interval's value; NaN before anything was observed. */
    double predict();

    /** A new predictor of the named kind: {@code constant}, {@code moving-average} or {@code kalman}. */
    static LoadPredictor named(String name) {
        return switch (name) {
            case "constant" -> new ConstantPredictor();
            case "moving-average" -> new MovingAveragePredictor(MovingAveragePredictor.DEFAULT_WINDOW);
            case "kalman" -> KalmanPredictor.defaults();
            default -> throw new IllegalArgumentException("unknown predictor '" + name
                    + "': constant, moving-average or kalman");
        };
    }
}
