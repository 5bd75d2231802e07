package io.squall.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The packaged {@code squall.jar} as a separate process: stdout carries exactly one JSON document. */
class SquallJarIT {

    @TempDir
    Path dir;

    private record Result(int exitCode, String out, String err) {
    }

    private Result squall(String... args) throws IOException, InterruptedException {
        List<String> command = SquallJar.command(args);
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).as("squall %s finished", List.of(args)).isTrue();
        return new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    @Test
    void stdoutIsPureJsonAndLogsGoToStderr() throws Exception {
        Path model = dir.resolve("m.gguf");
        Result generated = squall("gen-model", "--arch", "llama", "--dim", "64", "--layers", "1", "--heads", "4",
                "--ffn", "64", "--out", model.toString());
        assertThat(generated.exitCode()).as(generated.err()).isZero();
        Result run = squall("run", "--model", model.toString(), "--prompt", "hi", "--max-tokens", "2", "--json");
        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonNode json = new ObjectMapper().readTree(run.out());
        assertThat(json.get("prompt_tokens").asInt()).isEqualTo(2);
        assertThat(run.out().strip().lines()).hasSize(1);
        assertThat(run.err()).contains("Kernels:");
    }

    @Test
    void failuresExitNonZeroWithAMessageOnStderr() throws Exception {
        Result missing = squall("logits", "--model", dir.resolve("nope.gguf").toString(), "--tokens", "1");
        assertThat(missing.exitCode()).isNotZero();
        assertThat(missing.out()).isEmpty();
        assertThat(missing.err()).contains("nope.gguf").contains("no such file");
    }
}
