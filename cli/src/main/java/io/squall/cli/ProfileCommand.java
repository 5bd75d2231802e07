package io.squall.cli;

import io.squall.cli.model.ModelSpec;
import io.squall.cli.bench.WorkerProfiler;
import io.squall.functions.engine.batch.BatchConfig;
import io.squall.functions.engine.mock.StepTimingFit;
import io.squall.functions.engine.mock.StepTimingModel;
import io.squall.functions.worker.Engine;
import io.squall.functions.worker.ModelSource;
import io.squall.scheduler.profile.Profile;
import io.squall.scheduler.profile.ProfileFiles;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code squall bench profile}: measures one worker (the real engine, or the mock one to check a profile against
 * itself) and writes its {@link Profile}: prefill time against prompt length, decode step time against batch and
 * context, and the step-timing coefficients fitted to every step, which drive {@code --engine mock}.
 */
@Command(name = "profile", description = "Measure one worker's prefill and decode times against load and write its "
        + "profile (the planner's input and the mock engine's timing).")
final class ProfileCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--model", required = true, converter = ModelArgument.class, description = ModelArgument.DESCRIPTION)
    ModelSpec model;

    @CommandLine.Mixin
    EngineOptions engine;

    @Option(names = "--out", required = true, description = "the profile to write (JSON)")
    Path out;

    @Option(names = "--name", description = "the model's name in the profile (default: the GGUF's general.name)")
    String name;

    @Option(names = "--hardware", description = "what it runs on, e.g. cpu2 (default: cpu and the core count)")
    String hardware;

    @Option(names = "--source", description = "how the figures were obtained, for the profile's readers (default: "
            + "this command and the date)")
    String provenance;

    @Option(names = "--isl", split = ",", defaultValue = "16,64,128,256,512,1024,2048",
            description = "prompt lengths of the prefill table (default: ${DEFAULT-VALUE})")
    List<Integer> isls;

    @Option(names = "--batch", split = ",", defaultValue = "1,2,4,8,16,32,64",
            description = "running sequences of the decode table (default: ${DEFAULT-VALUE})")
    List<Integer> batches;

    @Option(names = "--decode-context", split = ",", defaultValue = "128,512,1024,2048",
            description = "contexts of the decode table, in tokens (default: ${DEFAULT-VALUE})")
    List<Integer> contexts;

    @Option(names = "--decode-tokens", defaultValue = "24", description = "tokens each decode sequence generates "
            + "(default: ${DEFAULT-VALUE})")
    int decodeTokens;

    @Option(names = "--repeats", defaultValue = "3", description = "prompts measured per length (default: ${DEFAULT-VALUE})")
    int repeats;

    @CommandLine.Mixin
    WorkerOptions stage;

    @Override
    public Integer call() throws Exception {
        Path file = ModelArgument.file(model);
        stage.defaultsFrom(engine.profileIfMock());
        BatchConfig batch = stage.batch();
        ModelSource source = engine.mock() ? ModelSource.of(engine.mockEngine(file)) : ModelSource.file(file);
        WorkerProfiler.Measurements measured;
        String modelName;
        try (Engine opened = source.open()) {
            modelName = name != null ? name : opened.modelName();
            spec.commandLine().getErr().println("squall bench profile: measuring " + modelName + " on "
                    + opened.describe() + " (a few minutes)");
            measured = new WorkerProfiler(opened.forwardPass(stage.context()), batch, stage.kv(),
                    engine.mock() ? engine.speedup : 1)
                    .measure(new WorkerProfiler.Plan(isls, batches, contexts, decodeTokens, repeats));
        }
        StepTimingModel fitted = StepTimingFit.fit(measured.samples());
        Profile profile = new Profile(Profile.FORMAT, modelName,
                hardware != null ? hardware : "cpu" + Runtime.getRuntime().availableProcessors(),
                provenance != null ? provenance : "measured by squall bench profile (" + (engine.mock() ? "mock" : "real")
                        + " engine) on " + LocalDate.now(),
                new Profile.WorkerShape(stage.kv().blockSize(), batch.maxRunningSequences(), batch.maxBatchedTokens(),
                        (long) stage.blocks() * stage.kv().blockSize(), stage.context()),
                ProfileTimings.of(fitted), measured.prefill(), measured.decode());
        ProfileFiles.write(profile, out);
        spec.commandLine().getOut().println(ProfileFiles.toJson(profile));
        spec.commandLine().getErr().println(String.format(Locale.ROOT,
                "squall bench profile: wrote %s after %d warm-up round(s); the timing model's error over %d steps: "
                        + "median %.1f%%, p90 %.1f%%",
                out, measured.warmUpRounds(), measured.samples().size(), 100 * error(fitted, measured.samples(), 0.5),
                100 * error(fitted, measured.samples(), 0.9)));
        return 0;
    }

    /** The {@code quantile} of the fitted model's relative error over the measured steps. */
    private static double error(StepTimingModel model, List<StepTimingFit.Sample> samples, double quantile) {
        double[] errors = samples.stream()
                .mapToDouble(s -> Math.abs(model.seconds(s.shape()) - s.seconds()) / s.seconds()).sorted().toArray();
        return errors.length == 0 ? 0 : errors[Math.min(errors.length - 1, (int) (quantile * errors.length))];
    }
}
