package io.squall.cli;

import picocli.CommandLine.Option;

import java.time.Duration;
import java.util.List;

/**
 * {@code --kernel-warmup-seconds} of the stage commands: the longest kernel warm-up on a miniature of the model before a
 * worker registers ({@link io.squall.functions.engine.model.KernelWarmup}). Shared through {@link EngineOptions} by
 * {@code serve}, {@code worker} and the planner's workers; {@code squall run} has its own, off by default.
 */
final class KernelWarmupOption {

    @Option(names = "--kernel-warmup-seconds", defaultValue = "30", description = "real engine: at most this long "
            + "running a miniature of the model before the worker registers, until the JIT has compiled the kernels, so "
            + "that no request waits on the JIT; 0 skips it (default: ${DEFAULT-VALUE})")
    int seconds;

    /** The longest warm-up, zero for none. */
    Duration limit() {
        return limit(seconds);
    }

    /** {@code seconds} of {@code --kernel-warmup-seconds} as a duration, checked. */
    static Duration limit(int seconds) {
        if (seconds < 0) {
            throw new IllegalArgumentException("--kernel-warmup-seconds must not be negative, got " + seconds);
        }
        return Duration.ofSeconds(seconds);
    }

    /** This option as a worker's command line takes it. */
    List<String> asArguments() {
        return List.of("--kernel-warmup-seconds", Integer.toString(seconds));
    }
}
