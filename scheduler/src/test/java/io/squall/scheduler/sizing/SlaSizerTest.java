package io.squall.scheduler.sizing;

import io.squall.scheduler.PlannerConfig;
import io.squall.scheduler.PlannerTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.DoubleSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The prefill sizing's M/G/c model against simulated queues of several workers. */
class SlaSizerTest {

    private static final double TARGET_MS = 4000;
    private static final double SERVICE_MS = 1000;
    private final SlaSizer sizer = new SlaSizer(new PerformanceModel(PlannerTest.profile()),
            new PlannerConfig.Slo(TARGET_MS, 50));

    /**
     * Prompts arriving at random at the load the sizer says {@code workers} carry have a 90th percentile of TTFT
     * (wait plus own time) about at the target: prompts alike (c² = 0), exponential (1) and log-normal like
     * Mooncake's lengths (1.4), on one worker and on four sharing one queue. A FIFO queue, 400,000 prompts.
     */
    @ParameterizedTest
    @CsvSource({"1, 0", "1, 1", "1, 1.4", "4, 0", "4, 1", "4, 1.4"})
    void atTheLoadTheWorkersCarryTheNinetiethPercentileMeetsTheTarget(int workers, double cv2) {
        long seed = System.nanoTime();
        SplittableRandom random = new SplittableRandom(seed);
        double busy = carried(workers, cv2);
        DoubleSupplier service = serviceTimes(cv2, random);
        double meanGap = SERVICE_MS / busy;
        int n = 400_000;
        double[] free = new double[workers];
        double[] ttfts = new double[n];
        double arrival = 0;
        for (int i = 0; i < n; i++) {
            arrival += meanGap * -Math.log(1 - random.nextDouble());
            int first = 0;
            for (int w = 1; w < workers; w++) {
                if (free[w] < free[first]) {
                    first = w;
                }
            }
            double own = service.getAsDouble();
            double start = Math.max(arrival, free[first]);
            free[first] = start + own;
            ttfts[i] = start + own - arrival;
        }
        Arrays.sort(ttfts);
        double p90 = ttfts[(int) (0.9 * n)];
        assertThat(p90).as("p90 with %d workers carrying %.3f, c² = %.1f, seed %d", workers, busy, cv2, seed)
                .isBetween(0.8 * TARGET_MS, 1.2 * TARGET_MS);
    }

    @Test
    void longPromptsAmongShortOnesNeedMoreWorkers() {
        double alike = sizer.workers(3, SERVICE_MS, SERVICE_MS, 0, TARGET_MS);
        double spread = sizer.workers(3, SERVICE_MS, SERVICE_MS, 1.4, TARGET_MS);
        assertThat(spread).isGreaterThan(alike + 0.3);
        assertThat(sizer.workers(3, SERVICE_MS, SERVICE_MS, Double.NaN, TARGET_MS)).isEqualTo(alike); // unknown: alike
        // short prompts against a long target: each worker as busy as the cap allows
        assertThat(sizer.workers(3, 10, 10, 0, TARGET_MS)).isCloseTo(3 / 0.95, within(1e-6));
    }

    @Test
    void workersSharingOneQueueCarryMoreEachThanOneAlone() {
        double one = carried(1, 1.4);
        double twelve = carried(12, 1.4);
        assertThat(twelve / 12).isGreaterThan(one + 0.2);
        // between whole workers the need grows smoothly with the load
        double previous = 0;
        for (double busy = 0.1; busy < 12; busy += 0.1) {
            double need = sizer.workers(busy, SERVICE_MS, SERVICE_MS, 1.4, TARGET_MS);
            assertThat(need).isGreaterThan(previous).isGreaterThan(busy);
            previous = need;
        }
    }

    @Test
    void aTargetBelowALonePromptsTimeCannotBeMet() {
        assertThat(sizer.workers(2, TARGET_MS, TARGET_MS, 0, TARGET_MS))
                .isEqualTo(2 / SlaSizer.UNREACHABLE_TTFT_UTILISATION);
    }

    @Test
    void erlangCMatchesItsClosedForms() {
        assertThat(SlaSizer.erlangC(1, 0.7)).isCloseTo(0.7, within(1e-12)); // one server: the utilisation
        assertThat(SlaSizer.erlangC(2, 1)).isCloseTo(1 / 3.0, within(1e-12)); // 2a² / (2 + a)(2 − a) at a = 1
    }

    /** The load {@code workers} carry within the target: where the sizer's need reaches exactly that many. */
    private double carried(int workers, double cv2) {
        double low = 0;
        double high = workers;
        for (int i = 0; i < 50; i++) {
            double mid = (low + high) / 2;
            if (sizer.workers(mid, SERVICE_MS, SERVICE_MS, cv2, TARGET_MS) <= workers) {
                low = mid;
            } else {
                high = mid;
            }
        }
        return low;
    }

    /** Service times of mean {@link #SERVICE_MS} and squared coefficient of variation {@code cv2}. */
    private static DoubleSupplier serviceTimes(double cv2, SplittableRandom random) {
        if (cv2 == 0) {
            return () -> SERVICE_MS;
        }
        if (cv2 == 1) {
            return () -> SERVICE_MS * -Math.log(1 - random.nextDouble());
        }
        double sigma2 = Math.log(1 + cv2);
        double mu = Math.log(SERVICE_MS) - sigma2 / 2;
        return () -> Math.exp(mu + Math.sqrt(sigma2) * random.nextGaussian());
    }
}
