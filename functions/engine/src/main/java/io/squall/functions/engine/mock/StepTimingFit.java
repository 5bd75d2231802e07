package io.squall.functions.engine.mock;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;

/**
 * Fits a {@link StepTimingModel} to measured steps: non-negative least squares on relative errors (each step's
 * residual divided by its measured time, so 4 ms decode steps weigh as much as 300 ms prompt chunks), over the
 * base cost at knots placed on measured step sizes and the two attention coefficients. The unknowns of the base are
 * its non-negative increments from knot to knot, so the fitted base never falls as a step grows (a noisy size
 * cannot pull a knot to zero between two dearer neighbours).
 */
public final class StepTimingFit {

    /**
     * One measured step.
     *
     * @param shape what it computed
     * @param seconds how long it took, start of one step to start of the next, &gt; 0
     */
    public record Sample(StepShape shape, double seconds) {
        public Sample {
            if (!(seconds > 0) || Double.isInfinite(seconds) || shape.rows() < 1) {
                throw new IllegalArgumentException("a sample needs a non-empty step and a positive time");
            }
        }
    }

    private StepTimingFit() {
    }

    /** The model that fits {@code samples} best; they must cover at least two distinct row counts. */
    public static StepTimingModel fit(List<Sample> samples) {
        int[] knots = knots(samples);
        if (knots.length < 2) {
            throw new IllegalArgumentException("fitting needs steps of at least two different sizes");
        }
        int unknowns = knots.length + 2;
        double[][] a = new double[samples.size()][unknowns];
        double[] b = new double[samples.size()];
        for (int i = 0; i < samples.size(); i++) {
            Sample sample = samples.get(i);
            double weight = 1 / sample.seconds();
            hat(knots, sample.shape().rows(), a[i], weight);
            a[i][knots.length] = sample.shape().decodeContext() * weight;
            a[i][knots.length + 1] = sample.shape().prefillPairs() * weight;
            b[i] = 1;
        }
        double[] x = NonNegativeLeastSquares.solve(a, b);
        double[] base = new double[knots.length];
        double sum = 0;
        for (int k = 0; k < knots.length; k++) {
            sum += x[k];
            base[k] = sum;
        }
        return new StepTimingModel(knots, base, x[knots.length], x[knots.length + 1]);
    }

    /**
     * The measured row counts, thinned so each knot has at least 1.5 times the rows of the one before, and always
     * the largest: every knot is a measured size, so none is left unconstrained.
     */
    private static int[] knots(List<Sample> samples) {
        TreeSet<Integer> rows = new TreeSet<>();
        samples.forEach(s -> rows.add(s.shape().rows()));
        List<Integer> knots = new ArrayList<>();
        for (int r : rows) {
            if (knots.isEmpty() || r >= 1.5 * knots.getLast()) {
                knots.add(r);
            }
        }
        if (knots.getLast() != rows.last()) {
            knots.set(knots.size() - 1, rows.last());
        }
        return knots.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * Writes into {@code row} the weights of the base's increments in the interpolated base at {@code rows}: every
     * increment up to the knot at or below it counts whole, the next one by how far {@code rows} lies towards it.
     */
    private static void hat(int[] knots, int rows, double[] row, double weight) {
        int i = Arrays.binarySearch(knots, rows);
        int lo = i >= 0 ? i : Math.max(0, -i - 2);
        Arrays.fill(row, 0, lo + 1, weight);
        if (i < 0 && -i - 1 > 0 && -i - 1 < knots.length) {
            int hi = -i - 1;
            row[hi] = (rows - knots[lo]) / (double) (knots[hi] - knots[lo]) * weight;
        }
    }
}
