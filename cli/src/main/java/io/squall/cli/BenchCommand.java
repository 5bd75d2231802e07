package io.squall.cli;

import io.squall.cli.bench.BenchChaosCommand;
import io.squall.cli.bench.BenchFuzzCommand;
import io.squall.cli.bench.BenchServeCommand;
import io.squall.cli.bench.BenchSoakCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code squall bench}: serving benchmarks, the engine's own speed, worker profiles, the wire fuzzer, the soak and the
 * chaos suite.
 */
@Command(name = "bench", description = "Serving benchmarks, the engine's speed, worker profiles, the wire fuzzer, the soak "
        + "and the chaos suite.",
        subcommands = {BenchServeCommand.class, EngineBenchCommand.class, ProfileCommand.class, BenchFuzzCommand.class,
                BenchSoakCommand.class, BenchChaosCommand.class})
final class BenchCommand implements Runnable {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a subcommand is required: serve, engine, profile, fuzz, soak or chaos");
    }
}
