package io.squall.cli;

import io.squall.functions.engine.mock.StepTimingModel;
import io.squall.functions.worker.Engine;
import io.squall.functions.worker.MockEngine;
import io.squall.scheduler.profile.Profile;
import io.squall.scheduler.profile.ProfileFiles;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Which engine a worker runs: {@code --engine real} computes with the model's weights; {@code --engine mock} runs
 * the same worker with the forward pass replaced by a timing model (DESIGN §8a), taken from {@code --profile} or
 * given as coefficients ({@code --step-ms}, {@code --decode-ns-per-token}, {@code --prefill-ns-per-pair}, which
 * override the profile's), its steps shortened by {@code --speedup}. Shared by {@code serve}, {@code worker} and
 * {@code bench profile}.
 */
final class EngineOptions {

    @Option(names = "--engine", defaultValue = "real", description = "real, or mock: the timing model replaces the "
            + "forward pass (default: ${DEFAULT-VALUE})")
    String engine;

    @Option(names = "--profile", description = "worker profile (squall bench profile): the mock engine's timing")
    Path profile;

    @Option(names = "--speedup", defaultValue = "1", description = "mock engine: simulated seconds per wall-clock "
            + "second (default: ${DEFAULT-VALUE})")
    double speedup;

    @Option(names = "--step-ms", split = ",", paramLabel = "ROWS=MS", description = "mock engine: the base cost of a "
            + "step of ROWS tokens, e.g. 1=4.2,64=9.5,512=61")
    List<String> stepMs;

    @Option(names = "--decode-ns-per-token", description = "mock engine: nanoseconds per context token a decode row reads")
    Double decodeNsPerToken;

    @Option(names = "--prefill-ns-per-pair", description = "mock engine: nanoseconds per query-key pair of a prompt chunk")
    Double prefillNsPerPair;

    @Mixin
    KernelWarmupOption kernelWarmup;

    boolean mock() {
        return switch (engine) {
            case "real" -> false;
            case "mock" -> true;
            default -> throw new IllegalArgumentException("--engine must be real or mock, got " + engine);
        };
    }

    /** These options as a worker's command line takes them, so the planner's workers run the same engine. */
    List<String> asArguments() {
        List<String> args = new ArrayList<>(List.of("--engine", engine));
        args.addAll(kernelWarmup.asArguments());
        if (profile != null) {
            args.addAll(List.of("--profile", profile.toAbsolutePath().toString()));
        }
        args.addAll(List.of("--speedup", Double.toString(speedup)));
        if (stepMs != null) {
            args.addAll(List.of("--step-ms", String.join(",", stepMs)));
        }
        if (decodeNsPerToken != null) {
            args.addAll(List.of("--decode-ns-per-token", Double.toString(decodeNsPerToken)));
        }
        if (prefillNsPerPair != null) {
            args.addAll(List.of("--prefill-ns-per-pair", Double.toString(prefillNsPerPair)));
        }
        return args;
    }

    /** The longest kernel warm-up ({@link Engine#warmUp}), zero for none. */
    Duration kernelWarmup() {
        return kernelWarmup.limit();
    }

    /** The mock engine over the vocabulary of {@code model}. */
    MockEngine mockEngine(Path model) {
        return MockEngine.open(model, timing(), speedup);
    }

    /** The {@code --profile} of a mock engine, whose worker shape sets the defaults of what a worker holds; else null. */
    Profile profileIfMock() {
        return mock() && profile != null ? ProfileFiles.read(profile) : null;
    }

    /** The mock engine's timing: the profile's, with any coefficient given on the command line instead. */
    StepTimingModel timing() {
        Profile.Timing base = profile == null ? null : ProfileFiles.read(profile).timing();
        if (base == null && (stepMs == null || decodeNsPerToken == null || prefillNsPerPair == null)) {
            throw new IllegalArgumentException("--engine mock needs --profile, or all of --step-ms, "
                    + "--decode-ns-per-token and --prefill-ns-per-pair");
        }
        List<Profile.Knot> knots = stepMs == null ? base.base() : knots(stepMs);
        return ProfileTimings.model(new Profile.Timing(knots,
                decodeNsPerToken != null ? decodeNsPerToken : base.decodeContextNsPerToken(),
                prefillNsPerPair != null ? prefillNsPerPair : base.prefillNsPerPair()));
    }

    private static List<Profile.Knot> knots(List<String> pairs) {
        List<Profile.Knot> knots = new ArrayList<>();
        for (String pair : pairs) {
            String[] parts = pair.split("=", 2);
            try {
                knots.add(new Profile.Knot(Integer.parseInt(parts[0].trim()), Double.parseDouble(parts[1].trim())));
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("--step-ms takes ROWS=MS pairs such as 1=4.2,64=9.5; got " + pair);
            }
        }
        return knots;
    }
}
