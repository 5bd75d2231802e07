package io.squall.functions.engine.mock;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class StepTimingModelTest {

    private final StepTimingModel model = new StepTimingModel(new int[] {1, 16, 512}, new double[] {0.004, 0.008, 0.1},
            10e-9, 2e-9);

    @Test
    void baseIsFlatBelowTheFirstKnotLinearBetweenKnotsAndExtendsTheLastSlope() {
        assertThat(model.base(1)).isEqualTo(0.004);
        assertThat(model.base(16)).isEqualTo(0.008);
        assertThat(model.base(8)).isCloseTo(0.004 + 7 * (0.004 / 15), within(1e-12));
        assertThat(model.base(264)).isCloseTo(0.008 + 248 * (0.092 / 496), within(1e-12));
        assertThat(model.base(1024)).isCloseTo(0.1 + 512 * (0.092 / 496), within(1e-12));
    }

    @Test
    void aStepAddsTheDecodeContextAndThePrefillPairsToTheBase() {
        // 8 decode rows at 1,000 positions each and a 100-token chunk after 200 cached positions
        StepShape decode = StepShape.decode(8, 1000);
        StepShape chunk = StepShape.prefill(100, 200);
        StepShape mixed = new StepShape(108, 8, 8000, chunk.prefillPairs());
        assertThat(chunk.prefillPairs()).isEqualTo(100 * 200 + 100 * 101 / 2);
        assertThat(model.seconds(decode)).isCloseTo(model.base(8) + 8000 * 10e-9, within(1e-12));
        assertThat(model.seconds(mixed)).isCloseTo(model.base(108) + 8000 * 10e-9 + chunk.prefillPairs() * 2e-9,
                within(1e-12));
        assertThat(model.seconds(new StepShape(0, 0, 0, 0))).isZero();
    }

    @Test
    void rejectsKnotsOutOfOrderAndNegativeCosts() {
        assertThatThrownBy(() -> new StepTimingModel(new int[] {4, 2}, new double[] {1, 2}, 0, 0))
                .hasMessageContaining("ascending");
        assertThatThrownBy(() -> new StepTimingModel(new int[] {1}, new double[] {-1}, 0, 0))
                .hasMessageContaining("non-negative");
        assertThatThrownBy(() -> new StepTimingModel(new int[] {1}, new double[] {1}, -1e-9, 0))
                .hasMessageContaining("non-negative");
        assertThatThrownBy(() -> new StepTimingModel(new int[] {1, 2}, new double[] {1}, 0, 0))
                .hasMessageContaining("one time per knot");
    }
}
