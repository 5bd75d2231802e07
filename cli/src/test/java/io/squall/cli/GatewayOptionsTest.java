package io.squall.cli;

import io.squall.gateway.routing.KvRoutingPolicy;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** Which cost the kv routers take: the workers' profile unless the command line names another or none. */
class GatewayOptionsTest {

    private static final Path PROFILES = Path.of("..", "examples", "profiles");
    private static final Path H100 = PROFILES.resolve("llama-8b-h100.json");
    private static final Path CPU = PROFILES.resolve("llama-124m-q8_0-cpu2.json");

    @Test
    void theWorkersProfileCostsRoutesInTimeWhenTheCommandLineIsSilent() {
        KvRoutingPolicy.Config config = options().kvConfig(H100);
        assertThat(config.latency()).as("routes costed in predicted milliseconds").isNotNull();
        assertThat(config.latency().prefillMs(8192)).isEqualTo(options("--router-profile", H100.toString())
                .kvConfig(null).latency().prefillMs(8192));
    }

    @Test
    void noneKeepsTheBlocksCostWhereTheWorkersProfileIsKnown() {
        assertThat(options("--router-profile", "none").kvConfig(H100).latency()).isNull();
    }

    @Test
    void withoutAnyProfileRoutesAreCostedInBlocks() {
        assertThat(options().kvConfig(null).latency()).isNull();
    }

    @Test
    void aNamedProfileWinsOverTheWorkersOne() {
        double cpu = options("--router-profile", CPU.toString()).kvConfig(null).latency().prefillMs(512);
        double h100 = options().kvConfig(H100).latency().prefillMs(512);
        assertThat(cpu).as("two CPU cores prefill far slower than an H100").isGreaterThan(10 * h100);
        assertThat(options("--router-profile", CPU.toString()).kvConfig(H100).latency().prefillMs(512)).isEqualTo(cpu);
    }

    private static GatewayOptions options(String... args) {
        return CommandLine.populateCommand(new GatewayOptions(), args);
    }
}
