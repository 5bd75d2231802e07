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
        System.clearProperty("PORT");
    }

    @Test
    void anOptionMissingFromTheCommandLineTakesTheEnvironmentsValue() {
        System.setProperty("squall.worker.kv-blocks", "123");
        WorkerCommand worker = parse("worker", "--model", "m.gguf", "--join", "h:1");
        assertThat(worker.stage.blocks).isEqualTo(123);
        assertThat(worker.drainSeconds).as("the declared default where the environment is silent").isEqualTo(25);
        assertThat(worker.httpPort).as("the bundled defaults: PORT, else a free port").isEqualTo(portFromEnvironment(0));
    }

    @Test
    void theBundledDefaultsGiveEveryStageKnativesPort() {
        System.setProperty("PORT", "4321"); // Knative sets it in the environment; the placeholder reads both
        assertThat(((WorkerCommand) parse("worker", "--model", "m.gguf", "--join", "h:1")).httpPort).isEqualTo(4321);
        assertThat(((ServeCommand) parse("serve")).gateway.httpPort).isEqualTo(4321);
        assertThat(((GatewayCommand) parse("gateway", "--model", "m.gguf", "--join", "h:1")).gateway.httpPort).isEqualTo(4321);
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

    @SuppressWarnings("unchecked")
    private static <T> T parse(String... args) {
        CommandLine commandLine = new CommandLine(new Squall());
        commandLine.setDefaultValueProvider(new StageDefaults(args)); // started beside picocli, as Squall does
        CommandLine.ParseResult result = commandLine.parseArgs(args);
        return (T) result.subcommand().commandSpec().userObject();
    }
}
