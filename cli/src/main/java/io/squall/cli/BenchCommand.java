package io.squall.cli;

import io.squall.cli.bench.BenchServeCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code squall bench}: serving benchmarks and worker profiles. */
@Command(name = "bench", description = "Serving benchmarks.", subcommands = {BenchServeCommand.class, ProfileCommand.class})
final class BenchCommand implements Runnable {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a subcommand is required: serve or profile");
    }
}
