package io.squall.cli.bench;

import io.squall.functions.engine.model.Architecture;
import io.squall.functions.engine.model.RandomModel;
import io.squall.kernels.GgmlType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A few thousand fuzzed requests and raw frames against a real prefill worker, decode worker and gateway on
 * loopback: each gets a typed error frame (or is served, when the mutation left it valid), none goes unanswered,
 * and the stages serve well-formed requests throughout. {@code squall bench fuzz} runs the same with 100,000.
 */
class WireFuzzIT {

    private static final long FRAMES = 2000;
    private static final long SEED = 20261123L;

    @TempDir
    Path dir;

    @Test
    @SuppressWarnings("unchecked")
    void everyFuzzedFrameGetsATypedAnswerAndTheStagesKeepServing() throws Exception {
        Path model = dir.resolve("m.gguf");
        RandomModel.write(new RandomModel.Spec(Architecture.LLAMA, new RandomModel.Shape(64, 2, 4, 2, 96, 512),
                GgmlType.Q8_0, null, 3), model);
        FuzzReport report;
        try (FuzzStack stack = new FuzzStack(model)) {
            Set<String> workers = stack.workers();
            report = new WireFuzzer(stack.targets(), Duration.ofSeconds(30)).run(FRAMES, SEED, 10, 500)
                    .withWorkers(workers, stack.workers());
        }
        System.out.println("fuzz seed " + SEED + ": " + report.json());
        assertThat(report.failures()).as("failures").isEmpty();
        assertThat(report.workersBefore()).hasSize(2);
        assertThat(report.workerRestarts()).isZero();
        assertThat(report.clean()).isTrue();
        assertThat(report.healthChecksPassed()).isEqualTo(3L * (FRAMES / 500 + 1));
        for (FuzzCases.Route route : FuzzCases.Route.values()) {
            Map<String, Object> counts = report.routes().get(route.wireName);
            assertThat((long) counts.get("sent")).as(route.wireName).isPositive();
            assertThat((Map<String, Long>) counts.get("typed_errors")).as(route.wireName + " typed errors")
                    .containsKey("INVALID_REQUEST");
        }
        assertThat(report.rawFrames().values().stream().mapToLong(Long::longValue).sum()).isPositive();
    }
}
