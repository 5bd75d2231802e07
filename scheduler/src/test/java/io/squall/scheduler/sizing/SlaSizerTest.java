package io.squall.scheduler.sizing;

import io.squall.scheduler.PlannerConfig;
import io.squall.scheduler.PlannerTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.DoubleSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/** The prefill utilisation the sizer allows, against a simulated single-worker queue at that utilisation. */
class SlaSizerTest {

    private static final double TARGET_MS = 4000;
    private static final double SERVICE_MS = 1000;
    private final SlaSizer sizer = new SlaSizer(new PerformanceModel(PlannerTest.profile()),
            new PlannerConfig.Slo(TARGET_MS, 50));

    /**
     * Prompts arriving at random at the allowed utilisation wait, at the 90th percentile, about what the target
     * leaves after a mean prompt's own time: prompts alike (c² = 0), exponential (1) and log-normal like
     * Mooncake's lengths (1.4). A FIFO queue by Lindley's recursion, 400,000 prompts.
     */
    @ParameterizedTest
    @ValueSource(doubles = {0, 1, 1.4})
    void atTheAllowedUtilisationTheNinetiethPercentileMeetsTheTarget(double cv2) {
        long seed = System.nanoTime();
        SplittableRandom random = new SplittableRandom(seed);
        double rho = sizer.utilisation(SERVICE_MS, cv2);
        DoubleSupplier service = serviceTimes(cv2, random);
        double meanGap = SERVICE_MS / rho;
        int n = 400_000;
        double[] waits = new double[n];
        double wait = 0;
        for (int i = 1; i < n; i++) {
            wait = Math.max(0, wait + service.getAsDouble() - meanGap * -Math.log(1 - random.nextDouble()));
            waits[i] = wait;
        }
        Arrays.sort(waits);
        double p90 = SERVICE_MS + waits[(int) (0.9 * n)];
        assertThat(p90).as("p90 at ρ = %.3f, c² = %.1f, seed %d", rho, cv2, seed)
                .isBetween(0.75 * TARGET_MS, 1.25 * TARGET_MS);
    }

    @Test
    void longPromptsAmongShortOnesNeedMoreHeadroom() {
        double alike = sizer.utilisation(SERVICE_MS, 0);
        double spread = sizer.utilisation(SERVICE_MS, 1.4);
        assertThat(spread).isLessThan(alike - 0.1);
        assertThat(sizer.utilisation(SERVICE_MS, Double.NaN)).isEqualTo(alike); // unknown spread: prompts alike
        assertThat(sizer.utilisation(100, 0)).isEqualTo(0.95); // short prompts against a long target: the cap
    }

    @Test
    void aTargetBelowALonePromptsTimeCannotBeMet() {
        assertThat(sizer.utilisation(TARGET_MS, 0)).isEqualTo(SlaSizer.UNREACHABLE_TTFT_UTILISATION);
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
