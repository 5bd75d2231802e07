package io.squall.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ClusterSecretOptionTest {

    private static final String SECRET = "a secret of more than sixteen bytes";

    @TempDir
    Path dir;

    private static ClusterSecretOption parse(String... args) {
        WorkerCommand command = new WorkerCommand();
        new CommandLine(command).parseArgs(concat(new String[] {"--model", "m.gguf", "--join", "127.0.0.1:5701"}, args));
        return command.clusterSecret;
    }

    private static String[] concat(String[] first, String[] second) {
        String[] all = java.util.Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, all, first.length, second.length);
        return all;
    }

    @Test
    void withoutOptionOrVariableTheClusterStaysOpen() {
        assertThat(parse().secret(Map.of()).isOpen()).isTrue();
        assertThat(parse().secret(Map.of(ClusterSecretOption.ENV, "  ")).isOpen()).isTrue();
    }

    @Test
    void theFileAndTheVariableGiveTheSameSecret() throws IOException {
        Path file = Files.writeString(dir.resolve("secret"), SECRET + "\n");
        String fromFile = parse("--cluster-secret-file", file.toString()).secret(Map.of()).clusterName("squall");
        String fromEnvironment = parse().secret(Map.of(ClusterSecretOption.ENV, SECRET)).clusterName("squall");
        assertThat(fromFile).isEqualTo(fromEnvironment).isNotEqualTo("squall");
    }

    @Test
    void bothAtOnceOrAShortSecretIsAClearError() throws IOException {
        Path file = Files.writeString(dir.resolve("secret"), SECRET);
        assertThatThrownBy(() -> parse("--cluster-secret-file", file.toString()).secret(Map.of(ClusterSecretOption.ENV, SECRET)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not both");
        assertThatThrownBy(() -> parse().secret(Map.of(ClusterSecretOption.ENV, "short")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("SQUALL_CLUSTER_SECRET")
                .hasMessageContaining("got 5").hasMessageNotContaining("short");
    }
}
