package io.squall.scheduler.predict;

/** The mean of the last {@code window} intervals: smooths noise, lags a trend by half a window. */
public final class MovingAveragePredictor implements LoadPredictor {

    static final int DEFAULT_WINDOW = 5;

    private final double[] values;
    private int count;
    private int next;

    public MovingAveragePredictor(int window) {
        if (window < 1) {
            throw new IllegalArgumentException("the window must hold at least one interval");
        }
        this.values = new double[window];
    }

    @Override
    public void observe(double value) {
        if (Double.isNaN(value)) {
            return;
        }
        values[next] = value;
        next = (next + 1) % values.length;
        count = Math.min(count + 1, values.length);
    }

    @Override
    public double predict() {
        if (count == 0) {
            return Double.NaN;
        }
        double sum = 0;
        for (int i = 0; i < count; i++) {
            sum += values[i];
        }
        return sum / count;
    }
}
