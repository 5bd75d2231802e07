package io.squall.cli;

import io.squall.scheduler.PlannerConfig;
import io.squall.scheduler.Pool;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class PlannerOptionsTest {

    private static final Path H100 = Path.of("..", "examples", "profiles", "llama-8b-h100.json");

    @Test
    void aggregatedWorkersWhoseFullestStepOutlastsTheItlTargetAreWarnedAbout() {
        PlannerConfig aggregated = config(Map.of(Pool.AGGREGATED, new PlannerConfig.Bounds(1, 8)));
        // the H100 profile's base: 8,192 rows take 374.4 ms, 2,048 take 93.6 ms
        assertThat(PlannerOptions.stepWarning(aggregated, H100, 8192)).contains("374 ms").contains("100 ms");
        assertThat(PlannerOptions.stepWarning(aggregated, H100, 2048)).isNull();
        PlannerConfig disaggregated = config(Map.of(Pool.PREFILL, new PlannerConfig.Bounds(1, 8),
                Pool.DECODE, new PlannerConfig.Bounds(1, 8)));
        assertThat(PlannerOptions.stepWarning(disaggregated, H100, 8192)).as("the decode pool gets its prompts computed by the prefill pool")
                .isNull();
    }

    private static PlannerConfig config(Map<Pool, PlannerConfig.Bounds> pools) {
        return new PlannerConfig(pools, 16, Duration.ofSeconds(30), new PlannerConfig.Slo(5_000, 100),
                PlannerConfig.Mode.SLA, "kalman", 3);
    }
}
