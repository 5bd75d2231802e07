package io.squall.cli.bench;

import io.squall.functions.engine.batch.BatchConfig;
import io.squall.functions.engine.mock.StepShape;
import io.squall.functions.engine.model.Architecture;
import io.squall.functions.engine.model.RandomModel;
import io.squall.functions.worker.Engine;
import io.squall.functions.worker.ModelSource;
import io.squall.functions.worker.kv.KvConfig;
import io.squall.kernels.GgmlType;
import io.squall.scheduler.profile.Profile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class WorkerProfilerTest {

    @TempDir
    Path dir;

    @Test
    void everyPlannedShapeRunsInEachWarmUpRoundBeforeItIsMeasured() throws Exception {
        Path model = dir.resolve("tiny.gguf");
        RandomModel.write(new RandomModel.Spec(Architecture.LLAMA, new RandomModel.Shape(64, 2, 4, 4, 128, 256),
                GgmlType.F32, null, 11), model);
        WorkerProfiler.Plan plan = new WorkerProfiler.Plan(List.of(24, 40), List.of(1, 3), List.of(32), 4, 2);
        try (Engine engine = ModelSource.file(model).open()) {
            RecordingForwardPass everyStep = new RecordingForwardPass(engine.forwardPass(256));
            WorkerProfiler.Measurements measured = new WorkerProfiler(everyStep, BatchConfig.defaults(),
                    KvConfig.inMemory(256), 1).measure(plan);

            assertThat(measured.warmUpRounds()).isBetween(1, 8);
            assertThat(measured.prefill()).extracting(Profile.PrefillPoint::isl).containsExactly(24, 40);
            List<StepShape> steps = everyStep.steps().stream().map(RecordingForwardPass.Step::shape).toList();
            for (int isl : plan.isls()) {
                assertThat(steps.stream().filter(s -> isLonePrompt(s, isl)).count())
                        .as("prompts of %d tokens: one a warm-up round, then the %d measured", isl, plan.repeats())
                        .isEqualTo(measured.warmUpRounds() + plan.repeats());
            }
            int firstMeasured = lonePrompt(steps, plan.isls().getFirst(), measured.warmUpRounds());
            for (int batch : plan.batches()) {
                assertThat(steps.subList(0, firstMeasured))
                        .as("%d sequences decoded before the first prompt is measured", batch)
                        .anyMatch(s -> s.rows() == batch && s.decodeRows() == batch);
            }
        }
    }

    private static boolean isLonePrompt(StepShape step, int tokens) {
        return step.rows() == tokens && step.decodeRows() == 0;
    }

    /** The index of the {@code nth} (from 0) step that prefilled a lone prompt of {@code tokens}. */
    private static int lonePrompt(List<StepShape> steps, int tokens, int nth) {
        int seen = 0;
        for (int i = 0; i < steps.size(); i++) {
            if (isLonePrompt(steps.get(i), tokens) && seen++ == nth) {
                return i;
            }
        }
        throw new AssertionError("no prompt of " + tokens + " tokens number " + nth);
    }
}
