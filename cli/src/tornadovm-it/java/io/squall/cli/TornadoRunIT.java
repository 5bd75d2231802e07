package io.squall.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code squall run --kernels tornadovm} in a JVM started with TornadoVM's argfile gives the same
 * greedy tokens as {@code --kernels cpu}: on the trained stories260K, the tiny reference models (F32,
 * Q8_0, Q4_0), and models written here that exercise Q/K/V biases (qwen2), per-head Q/K norms (qwen3)
 * and F16 weights, with both executors rounding activations to 8 bits before Q8_0 and Q4_0 weights as
 * they do by default.
 */
class TornadoRunIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;

    @AfterEach
    void clearKernelChoice() {
        System.clearProperty("squall.kernels");
    }

    private static JsonNode run(Path model, String kernels) throws Exception {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Squall.execute(new PrintWriter(out, true), new PrintWriter(err, true), "run", "--model",
                model.toString(), "--prompt", "Once upon a time", "--temperature", "0", "--max-tokens", "24", "--json",
                "--kernels", kernels);
        assertThat(code).as(err.toString()).isZero();
        return JSON.readTree(out.toString());
    }

    private static Path reference(String name) {
        Path model = Path.of(System.getProperty("squall.reference.dir"), "models", name);
        assertThat(model).exists();
        return model;
    }

    private static Path generated(String arch, String type) {
        Path model = dir.resolve(arch + "-" + type + ".gguf");
        if (!Files.exists(model)) {
            int code = Squall.execute(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()),
                    "gen-model", "--arch", arch, "--dim", "64", "--layers", "2", "--heads", "4", "--kv-heads", "2",
                    "--ffn", "160", "--type", type, "--out", model.toString());
            assertThat(code).isZero();
        }
        return model;
    }

    @ParameterizedTest
    @ValueSource(strings = {"stories260K.gguf", "tiny-llama-spm-f32.gguf", "tiny-llama-spm-q8_0.gguf",
            "tiny-llama-spm-q4_0.gguf", "qwen2:q8_0", "qwen3:f16", "llama:q4_0"})
    void tornadoVmGivesTheCpuExecutorsGreedyTokens(String model) throws Exception {
        Path file = model.contains(":") ? generated(model.split(":")[0], model.split(":")[1]) : reference(model);
        JsonNode cpu = run(file, "cpu");
        JsonNode tornado = run(file, "tornadovm");
        assertThat(cpu.get("completion_tokens").asInt()).isPositive();
        assertThat(tornado.get("token_ids")).isEqualTo(cpu.get("token_ids"));
        assertThat(tornado.get("text")).isEqualTo(cpu.get("text"));
    }
}
