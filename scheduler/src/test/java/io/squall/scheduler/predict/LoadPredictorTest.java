package io.squall.scheduler.predict;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class LoadPredictorTest {

    @Test
    void theKalmanFilterFollowsARampWithoutTheLagOfAMovingAverage() {
        LoadPredictor kalman = LoadPredictor.named("kalman");
        LoadPredictor average = LoadPredictor.named("moving-average");
        for (int i = 1; i <= 30; i++) {
            kalman.observe(10 * i);
            average.observe(10 * i);
        }
        // the next value is 310
        assertThat(kalman.predict()).isCloseTo(310, within(15.0));
        assertThat(average.predict()).isCloseTo(280, within(1.0)); // the mean of 260..300
    }

    @Test
    void theKalmanFilterDoesNotTakeOneNoisyIntervalAtFaceValue() {
        long seed = System.nanoTime();
        SplittableRandom random = new SplittableRandom(seed);
        LoadPredictor kalman = LoadPredictor.named("kalman");
        for (int i = 0; i < 40; i++) {
            kalman.observe(100 * (1 + 0.1 * (2 * random.nextDouble() - 1)));
        }
        kalman.observe(200); // one outlier
        assertThat(kalman.predict()).as("seed %d", seed).isBetween(105.0, 170.0);
    }

    @Test
    void constantRepeatsTheLastValueAndEveryPredictorIgnoresNaN() {
        for (String name : new String[] {"constant", "moving-average", "kalman"}) {
            LoadPredictor predictor = LoadPredictor.named(name);
            assertThat(predictor.predict()).isNaN();
            predictor.observe(7);
            predictor.observe(Double.NaN);
            assertThat(predictor.predict()).as(name).isCloseTo(7, within(1e-9));
        }
        assertThatThrownBy(() -> LoadPredictor.named("arima")).hasMessageContaining("kalman");
    }
}
