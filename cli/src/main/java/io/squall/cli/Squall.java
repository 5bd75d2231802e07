package io.squall.cli;

import io.squall.functions.engine.gguf.GgufException;
import picocli.CommandLine;

import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine.Command;

/** Entry point of the {@code squall} command. */
@Command(name = "squall",
        mixinStandardHelpOptions = true,
        versionProvider = Squall.Version.class,
        description = "Serve large language models on the JVM.",
        subcommands = {
                RunCommand.class,
                TokenizeCommand.class,
                LogitsCommand.class,
                GenModelCommand.class,
                ServeCommand.class,
                WorkerCommand.class,
                GatewayCommand.class,
                BenchCommand.class,
                DeployCommand.class,
                ImageCommand.class,
                PlannerCommand.class,
        })
public final class Squall implements Runnable {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        PrintWriter out = new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), true);
        PrintWriter err = new PrintWriter(new OutputStreamWriter(System.err, StandardCharsets.UTF_8), true);
        System.exit(execute(out, err, args));
    }

    /** Runs the command line with the given streams and returns the exit code (0 on success). */
    static int execute(PrintWriter out, PrintWriter err, String... args) {
        StageDefaults defaults = new StageDefaults(args); // first: a stage's environment starts beside picocli's model
        CommandLine commandLine = new CommandLine(new Squall());
        commandLine.getSubcommands().values().forEach(sub -> sub.getCommandSpec().mixinStandardHelpOptions(true));
        commandLine.setDefaultValueProvider(defaults);
        commandLine.setOut(out);
        commandLine.setErr(err);
        commandLine.setExecutionExceptionHandler(Squall::reportFailure);
        return commandLine.execute(args);
    }

    /** Bad input and unreadable files are the user's to fix: one line, no stack trace. */
    private static int reportFailure(Exception e, CommandLine commandLine, CommandLine.ParseResult parseResult) {
        boolean expected = e instanceof IllegalArgumentException || e instanceof GgufException
                || e instanceof java.io.UncheckedIOException
                || e instanceof java.io.IOException || e instanceof IllegalStateException;
        if (expected) {
            commandLine.getErr().println("squall " + commandLine.getCommandName() + ": " + e.getMessage());
        } else {
            commandLine.getErr().println("squall " + commandLine.getCommandName() + ": internal error: " + e);
            e.printStackTrace(commandLine.getErr());
        }
        return 1;
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a subcommand is required");
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = Squall.class.getPackage().getImplementationVersion();
            return new String[] {"squall " + (version == null ? "development build" : version)};
        }
    }
}
