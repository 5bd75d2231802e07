package io.squall.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import static org.assertj.core.api.Assertions.assertThat;

/** The stage commands' options not given on the command line come from Micronaut's environment. */
class StageDefaultsTest {

    @AfterEach
    void clear() {
        System.clearProperty("squall.worker.kv-blocks");
        System.clearProperty("squall.worker.drain-seconds");
    }

    @Test
    void anOptionMissingFromTheCommandLineTakesTheEnvironmentsValue() {
        System.setProperty("squall.worker.kv-blocks", "123");
        WorkerCommand worker = parse("worker", "--model", "m.gguf", "--join", "h:1");
        assertThat(worker.stage.blocks).isEqualTo(123);
        assertThat(worker.drainSeconds).as("the declared default where the environment is silent").isEqualTo(25);
        assertThat(worker.httpPort).as("application.yml: PORT, else a free port").isEqualTo(portFromEnvironment(0));
    }

    @Test
    void theCommandLineWins() {
        System.setProperty("squall.worker.kv-blocks", "123");
        System.setProperty("squall.worker.drain-seconds", "7");
        WorkerCommand worker = parse("worker", "--model", "m.gguf", "--join", "h:1", "--kv-blocks", "9");
        assertThat(worker.stage.blocks).isEqualTo(9);
        assertThat(worker.drainSeconds).isEqualTo(7);
    }

    private static int portFromEnvironment(int otherwise) {
        String port = System.getenv("PORT");
        return port == null ? otherwise : Integer.parseInt(port);
    }

    private static WorkerCommand parse(String... args) {
        CommandLine commandLine = new CommandLine(new Squall());
        commandLine.setDefaultValueProvider(new StageDefaults());
        CommandLine.ParseResult result = commandLine.parseArgs(args);
        return (WorkerCommand) result.subcommand().commandSpec().userObject();
    }
}
