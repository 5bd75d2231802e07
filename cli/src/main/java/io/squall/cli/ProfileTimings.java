package io.squall.cli;

import io.squall.functions.engine.mock.StepTimingModel;
import io.squall.scheduler.profile.Profile;

import java.util.ArrayList;
import java.util.List;

/**
 * Between a profile's timing as the file states it (milliseconds, nanoseconds) and the mock engine's model of
 * it (seconds): the planner's module and the engine's do not depend on each other, so the CLI translates.
 */
final class ProfileTimings {

    private ProfileTimings() {
    }

    static StepTimingModel model(Profile.Timing timing) {
        List<Profile.Knot> base = timing.base();
        int[] rows = new int[base.size()];
        double[] seconds = new double[base.size()];
        for (int i = 0; i < rows.length; i++) {
            rows[i] = base.get(i).rows();
            seconds[i] = base.get(i).ms() / 1e3;
        }
        return new StepTimingModel(rows, seconds, timing.decodeContextNsPerToken() / 1e9, timing.prefillNsPerPair() / 1e9);
    }

    static Profile.Timing of(StepTimingModel model) {
        List<Profile.Knot> knots = new ArrayList<>();
        for (int i = 0; i < model.knotRows().length; i++) {
            knots.add(new Profile.Knot(model.knotRows()[i], round(model.knotSeconds()[i] * 1e3)));
        }
        return new Profile.Timing(knots, round(model.secondsPerDecodeContextToken() * 1e9),
                round(model.secondsPerPrefillPair() * 1e9));
    }

    /** Four significant digits: the files are read by people too, and the measurements are not more precise. */
    static double round(double value) {
        if (value == 0 || !Double.isFinite(value)) {
            return value;
        }
        return new java.math.BigDecimal(value).round(new java.math.MathContext(4)).doubleValue();
    }
}
