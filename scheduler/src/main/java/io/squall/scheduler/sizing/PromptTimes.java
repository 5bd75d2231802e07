package io.squall.scheduler.sizing;

/**
 * How long prompts take on their own, as a distribution: log-normal of a given mean and squared coefficient of
 * variation (Mooncake's prompt lengths are close to log-normal), held as {@value #POINTS} equally likely points,
 * or one point when the prompts are alike. With a queueing wait added it gives TTFT's percentiles. Immutable.
 */
final class PromptTimes {

    static final int POINTS = 128;

    /** Ascending; their mean is the mean asked for. */
    private final double[] millis;

    private PromptTimes(double[] millis) {
        this.millis = millis;
    }

    /** Prompt times of mean {@code meanMs} and squared coefficient of variation {@code cv2} (alike when 0 or NaN). */
    static PromptTimes of(double meanMs, double cv2) {
        if (!(cv2 > 0)) {
            return new PromptTimes(new double[] {meanMs});
        }
        double sigma = Math.sqrt(Math.log1p(cv2));
        double[] points = new double[POINTS];
        double sum = 0;
        for (int i = 0; i < POINTS; i++) {
            points[i] = Math.exp(sigma * normalQuantile((i + 0.5) / POINTS));
            sum += points[i];
        }
        // scaled so the points' own mean is the mean, not the continuous distribution's
        double scale = meanMs * POINTS / sum;
        for (int i = 0; i < POINTS; i++) {
            points[i] *= scale;
        }
        return new PromptTimes(points);
    }

    /**
     * The {@code quantile} of a prompt's time plus a wait that is 0 with probability {@code 1 − waitProbability} and
     * otherwise exponential of mean {@code waitScaleMs} (a queue's wait with several servers, or one).
     */
    double percentileMs(double quantile, double waitProbability, double waitScaleMs) {
        double tail = 1 - quantile;
        double low = 0;
        double high = millis[millis.length - 1] + waitScaleMs * (Math.log(1 / tail) + 1);
        for (int i = 0; i < 48; i++) {
            double mid = (low + high) / 2;
            if (exceedance(mid, waitProbability, waitScaleMs) > tail) {
                low = mid;
            } else {
                high = mid;
            }
        }
        return high;
    }

    /** P(prompt time + wait > t). */
    private double exceedance(double t, double waitProbability, double waitScaleMs) {
        double sum = 0;
        for (double own : millis) {
            if (own >= t) {
                sum += 1;
            } else if (waitProbability > 0 && waitScaleMs > 0) {
                sum += waitProbability * Math.exp(-(t - own) / waitScaleMs);
            }
        }
        return sum / millis.length;
    }

    /** The standard normal's quantile function (Acklam's rational approximation, relative error below 1.2e-9). */
    static double normalQuantile(double p) {
        final double[] a = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00};
        final double[] b = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                6.680131188771972e+01, -1.328068155288572e+01};
        final double[] c = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00};
        final double[] d = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                3.754408661907416e+00};
        double low = 0.02425;
        if (p < low) {
            double q = Math.sqrt(-2 * Math.log(p));
            return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
                    / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
        }
        if (p > 1 - low) {
            return -normalQuantile(1 - p);
        }
        double q = p - 0.5;
        double r = q * q;
        return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
                / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
    }
}
