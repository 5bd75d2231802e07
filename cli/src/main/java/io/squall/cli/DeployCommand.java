package io.squall.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code squall deploy}: deployments of a graph onto a platform. */
@Command(name = "deploy", description = "Deploy a serving graph.", subcommands = DeployKnativeCommand.class)
final class DeployCommand implements Runnable {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a subcommand is required: knative");
    }
}
