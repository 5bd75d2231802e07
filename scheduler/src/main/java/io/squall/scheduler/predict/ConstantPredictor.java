package io.squall.scheduler.predict;

/** The next interval looks like the last one. */
public final class ConstantPredictor implements LoadPredictor {

    private double last = Double.NaN;

    @Override
    public void observe(double value) {
        if (!Double.isNaN(value)) {
            last = value;
        }
    }

    @Override
    public double predict() {
        return last;
    }
}
