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
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code squall run --kernels tornadovm} in a JVM started with TornadoVM's argfile gives the same
 * greedy tokens as {@code --kernels cpu}: on the trained stories260K, the tiny reference models (F32,
 * Q8_0, Q4_0), and models written here that exercise Q/K/V biases (qwen2), per-head Q/K norms (qwen3)
 * and F16 weights, with both executors rounding activations to 8 bits before Q8_0 and Q4_0 weights as
 * they do by default. The executors add floats in different orders, so their logits differ by about 1e-3;
 * random-weight models have near-ties, and there (only there) the greedy tokens may part: where they do, both
 * executors' logits for that prefix must agree within {@link #LOGIT_TOLERANCE} and the CPU executor's two
 * candidates must lie within twice their largest difference.
 */
class TornadoRunIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;

    @AfterEach
    void clearKernelChoice() {
        System.clearProperty("squall.kernels");
    }

    private static final double LOGIT_TOLERANCE = 5e-3;

    private static JsonNode squall(String... args) throws Exception {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Squall.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
        assertThat(code).as(err.toString()).isZero();
        return JSON.readTree(out.toString());
    }

    private static int[] ids(JsonNode array) {
        int[] ids = new int[array.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = array.get(i).asInt();
        }
        return ids;
    }

    private static String csv(int[] ids, int count) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < count; i++) {
            out.append(i == 0 ? "" : ",").append(ids[i]);
        }
        return out.toString();
    }

    private static int[] generate(Path model, int[] prompt, String kernels) throws Exception {
        return ids(squall("run", "--model", model.toString(), "--tokens", csv(prompt, prompt.length), "--temperature",
                "0", "--max-tokens", "24", "--json", "--kernels", kernels).get("token_ids"));
    }

    private static double[] logits(Path model, int[] prompt, int[] generated, int count, String kernels)
            throws Exception {
        int[] tokens = Arrays.copyOf(prompt, prompt.length + count);
        System.arraycopy(generated, 0, tokens, prompt.length, count);
        JsonNode values = squall("logits", "--model", model.toString(), "--tokens", csv(tokens, tokens.length),
                "--all", "--kernels", kernels).get("logits");
        double[] logits = new double[values.size()];
        for (int i = 0; i < logits.length; i++) {
            logits[i] = values.get(i).asDouble();
        }
        return logits;
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
        int[] prompt = ids(squall("tokenize", "--model", file.toString(), "--text", "Once upon a time", "--bos")
                .get("ids"));
        int[] cpu = generate(file, prompt, "cpu");
        int[] tornado = generate(file, prompt, "tornadovm");
        assertThat(cpu).isNotEmpty();
        int parted = 0;
        while (parted < Math.min(cpu.length, tornado.length) && cpu[parted] == tornado[parted]) {
            parted++;
        }
        if (parted == cpu.length && parted == tornado.length) {
            return;
        }
        assertThat(parted).as("both generate 24 tokens").isLessThan(Math.min(cpu.length, tornado.length));
        double[] onCpu = logits(file, prompt, cpu, parted, "cpu");
        double[] onTornado = logits(file, prompt, cpu, parted, "tornadovm");
        double largest = 0;
        for (int i = 0; i < onCpu.length; i++) {
            largest = Math.max(largest, Math.abs(onCpu[i] - onTornado[i]));
        }
        assertThat(largest).as("the executors' logits after %d tokens", parted).isLessThan(LOGIT_TOLERANCE);
        assertThat(onCpu[cpu[parted]] - onCpu[tornado[parted]])
                .as("token %d parts at a tie: the CPU executor's candidates %d and %d", parted, cpu[parted],
                        tornado[parted])
                .isBetween(0.0, 2 * largest);
    }
}
