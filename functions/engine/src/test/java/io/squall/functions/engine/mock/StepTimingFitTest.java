package io.squall.functions.engine.mock;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.withinPercentage;

class StepTimingFitTest {

    /** A GPU-like worker: flat while memory-bound, then compute-bound; decode attention dominated by KV reads. */
    private static final StepTimingModel TRUTH = new StepTimingModel(new int[] {1, 64, 512}, new double[] {0.006, 0.0065,
            0.03}, 40e-9, 1.5e-9);

    @Test
    void recoversAKnownModelFromNoisyStepsOfTheShapesAProfilerRuns() {
        long seed = System.nanoTime();
        SplittableRandom random = new SplittableRandom(seed);
        List<StepTimingFit.Sample> samples = new ArrayList<>();
        for (int batch : new int[] {1, 2, 4, 8, 16, 32, 64}) {
            for (int context : new int[] {128, 1024, 4096}) {
                for (int r = 0; r < 5; r++) {
                    samples.add(noisy(StepShape.decode(batch, context), random));
                }
            }
        }
        for (int isl : new int[] {64, 256, 512, 2048}) {
            for (int start = 0; start < isl; start += 512) {
                samples.add(noisy(StepShape.prefill(Math.min(512, isl - start), start), random));
            }
        }
        StepTimingModel fitted = StepTimingFit.fit(samples);
        // checked where it matters: predicted step times, within the 2% noise plus a little
        for (StepShape shape : List.of(StepShape.decode(1, 128), StepShape.decode(16, 2048), StepShape.decode(64, 4096),
                StepShape.prefill(512, 0), StepShape.prefill(512, 1536), StepShape.prefill(100, 0))) {
            assertThat(fitted.seconds(shape)).as("seed %d, %s", seed, shape)
                    .isCloseTo(TRUTH.seconds(shape), withinPercentage(6));
        }
        assertThat(fitted.secondsPerDecodeContextToken()).as("seed %d", seed).isCloseTo(40e-9, withinPercentage(15));
    }

    @Test
    void theFittedBaseNeverFallsAsAStepGrowsEvenWhereOneSizeMeasuredCheaperThanASmallerOne() {
        List<StepTimingFit.Sample> samples = new ArrayList<>();
        // 100-row steps happened to measure cheaper than 64-row ones (a quiet moment), 200-row ones dearer again
        for (int[] rowsAndMicros : new int[][] {{1, 6000}, {64, 6500}, {100, 3000}, {200, 12000}, {512, 30000}}) {
            for (int context : new int[] {0, 256}) {
                samples.add(new StepTimingFit.Sample(new StepShape(rowsAndMicros[0], rowsAndMicros[0],
                        (long) rowsAndMicros[0] * context, 0), rowsAndMicros[1] * 1e-6));
            }
        }
        StepTimingModel fitted = StepTimingFit.fit(samples);
        for (int rows = 2; rows <= 512; rows++) {
            assertThat(fitted.base(rows)).as("base at %d rows", rows).isGreaterThanOrEqualTo(fitted.base(rows - 1));
        }
        assertThat(fitted.base(100)).as("the dip is fitted as flat, not as a fall to zero").isGreaterThan(0.003);
    }

    @Test
    void needsStepsOfTwoSizes() {
        List<StepTimingFit.Sample> one = List.of(new StepTimingFit.Sample(StepShape.decode(4, 100), 0.01),
                new StepTimingFit.Sample(StepShape.decode(4, 200), 0.011));
        assertThatThrownBy(() -> StepTimingFit.fit(one)).hasMessageContaining("two different sizes");
    }

    private static StepTimingFit.Sample noisy(StepShape shape, SplittableRandom random) {
        return new StepTimingFit.Sample(shape, TRUTH.seconds(shape) * (1 + 0.02 * (2 * random.nextDouble() - 1)));
    }
}
