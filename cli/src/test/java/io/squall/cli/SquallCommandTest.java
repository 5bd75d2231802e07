package io.squall.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import static io.squall.cli.CliRun.squall;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The {@code squall} commands end to end on a model written by {@code gen-model}: JSON shapes and exit codes. */
class SquallCommandTest {

    @TempDir
    static Path dir;

    private static Path model;

    @BeforeAll
    static void generateModel() throws Exception {
        model = dir.resolve("tiny.gguf");
        CliRun generated = squall("gen-model", "--arch", "qwen2", "--dim", "64", "--layers", "2", "--heads", "4",
                "--kv-heads", "2", "--ffn", "128", "--type", "q8_0", "--out", model.toString());
        assertThat(generated.exitCode()).as(generated.err()).isZero();
        assertThat(generated.json().get("bytes").asLong()).isEqualTo(Files.size(model));
    }

    @Test
    void runPrintsTheContractJsonAndIsReproducibleBySeed() throws Exception {
        CliRun first = squall("run", "--model", model.toString(), "--prompt", "Hello there", "--max-tokens", "7",
                "--temperature", "0.9", "--seed", "42", "--json");
        assertThat(first.exitCode()).as(first.err()).isZero();
        JsonNode json = first.json();
        assertThat(json.get("token_ids")).hasSize(json.get("completion_tokens").asInt());
        assertThat(json.get("completion_tokens").asInt()).isBetween(0, 7);
        // The built-in vocabulary has one token per byte and no BOS: "Hello there" is 11 tokens.
        assertThat(json.get("prompt_tokens").asInt()).isEqualTo(11);
        assertThat(json.get("text").isTextual()).isTrue();
        assertThat(json.has("prefill_tokens_per_second")).isTrue();
        assertThat(json.has("decode_tokens_per_second")).isTrue();
        assertThat(json.get("kernel_warmup_ms").asLong()).as("no kernel warm-up unless asked for").isZero();
        JsonNode firstToken = json.get("first_token_after_launch_ms");
        assertThat(json.get("completion_tokens").asInt() > 0 ? firstToken.asLong() > 0 : firstToken.isNull()).isTrue();

        CliRun again = squall("run", "--model", model.toString(), "--prompt", "Hello there", "--max-tokens", "7",
                "--temperature", "0.9", "--seed", "42", "--json");
        assertThat(again.json().get("token_ids")).isEqualTo(json.get("token_ids"));
    }

    @Test
    void greedyRunContinuesWithTheArgmaxThatLogitsReports() throws Exception {
        CliRun logits = squall("logits", "--model", model.toString(), "--tokens", "72,101,108");
        assertThat(logits.exitCode()).as(logits.err()).isZero();
        assertThat(logits.json().get("logits")).hasSize(32);
        CliRun run = squall("run", "--model", model.toString(), "--tokens", "72,101,108", "--max-tokens", "1",
                "--temperature", "0", "--json");
        assertThat(run.json().get("prompt_tokens").asInt()).isEqualTo(3);
        int argmax = logits.json().get("argmax").asInt();
        if (argmax != 258) { // 258 is the end-of-generation token, which run does not output
            assertThat(run.json().get("token_ids").get(0).asInt()).isEqualTo(argmax);
        }
        CliRun all = squall("logits", "--model", model.toString(), "--tokens", "72", "--all");
        assertThat(all.json().get("logits")).hasSize(259);

        CliRun warmed = squall("run", "--model", model.toString(), "--tokens", "72,101,108", "--max-tokens", "1",
                "--temperature", "0", "--json", "--kernel-warmup-seconds", "2");
        assertThat(warmed.json().get("kernel_warmup_ms").asLong()).isPositive();
        assertThat(warmed.json().get("token_ids")).as("a kernel warm-up changes nothing the model computes")
                .isEqualTo(run.json().get("token_ids"));
    }

    @Test
    void benchEngineReportsEachTestAsLlamaBenchDoes() throws Exception {
        CliRun run = squall("bench", "engine", "--model", model.toString(), "-p", "8,16", "-n", "4", "-r", "3",
                "--warmup", "1", "--json");
        assertThat(run.exitCode()).as(run.err()).isZero();
        String[] lines = run.out().strip().split("\n");
        assertThat(lines).hasSize(3);
        String[] tests = {"pp8", "pp16", "tg4"};
        int[][] lengths = {{8, 0}, {16, 0}, {0, 4}};
        for (int i = 0; i < lines.length; i++) {
            JsonNode test = new ObjectMapper().readTree(lines[i]);
            assertThat(test.get("test").asText()).isEqualTo(tests[i]);
            assertThat(test.get("n_prompt").asInt()).isEqualTo(lengths[i][0]);
            assertThat(test.get("n_gen").asInt()).isEqualTo(lengths[i][1]);
            JsonNode samples = test.get("samples_ts");
            assertThat(samples).hasSize(3);
            double sum = 0;
            for (JsonNode sample : samples) {
                assertThat(sample.asDouble()).isPositive();
                sum += sample.asDouble();
            }
            assertThat(test.get("avg_ts").asDouble()).isCloseTo(sum / 3, within(0.02));
            assertThat(test.get("stddev_ts").asDouble()).isNotNegative();
        }

        CliRun table = squall("bench", "engine", "--model", model.toString(), "-p", "4", "-n", "2", "-r", "1", "--warmup", "0");
        assertThat(table.exitCode()).as(table.err()).isZero();
        assertThat(table.out()).contains("| pp4 |").contains("| tg2 |").contains("±");

        CliRun noRuns = squall("bench", "engine", "--model", model.toString(), "-r", "0");
        assertThat(noRuns.exitCode()).isNotZero();
        assertThat(noRuns.err()).contains("-r must be at least 1");
        CliRun decodeOnly = squall("bench", "engine", "--model", model.toString(), "-p", "0", "-n", "3", "-r", "1",
                "--warmup", "0", "--json");
        assertThat(decodeOnly.exitCode()).as(decodeOnly.err()).isZero();
        assertThat(decodeOnly.out().strip().split("\n")).singleElement()
                .satisfies(line -> assertThat(new ObjectMapper().readTree(line).get("test").asText()).isEqualTo("tg3"));
        CliRun nothing = squall("bench", "engine", "--model", model.toString(), "-p", "0", "-n", "0");
        assertThat(nothing.exitCode()).isNotZero();
        assertThat(nothing.err()).contains("nothing to measure");
        CliRun negative = squall("bench", "engine", "--model", model.toString(), "-n", "-2");
        assertThat(negative.exitCode()).isNotZero();
        assertThat(negative.err()).contains("lengths of 0 or more, got -2");
    }

    @Test
    void tokenizeReturnsIds() throws Exception {
        CliRun tokens = squall("tokenize", "--model", model.toString(), "--text", "hé");
        assertThat(tokens.exitCode()).isZero();
        assertThat(tokens.json().get("ids")).hasSize(3); // h, and the two bytes of é
    }

    @Test
    void badInputGivesAMessageAndNonZeroExit() {
        CliRun missing = squall("run", "--model", dir.resolve("absent.gguf").toString(), "--prompt", "x", "--json");
        assertThat(missing.exitCode()).isNotZero();
        assertThat(missing.err()).contains("absent.gguf").doesNotContain("Exception");
        assertThat(missing.out()).isEmpty();

        CliRun badToken = squall("logits", "--model", model.toString(), "--tokens", "5,999999");
        assertThat(badToken.exitCode()).isNotZero();
        assertThat(badToken.err()).contains("999999");

        CliRun badType = squall("gen-model", "--arch", "llama", "--dim", "64", "--layers", "1", "--heads", "4",
                "--ffn", "64", "--type", "q5_9", "--out", dir.resolve("x.gguf").toString());
        assertThat(badType.exitCode()).isNotZero();
        assertThat(badType.err()).contains("q5_9");

        CliRun badArch = squall("gen-model", "--arch", "gpt5", "--dim", "64", "--layers", "1", "--heads", "4",
                "--ffn", "64", "--out", dir.resolve("y.gguf").toString());
        assertThat(badArch.err()).contains("unsupported architecture 'gpt5'");

        for (String[] option : new String[][] {{"--kv-eviction", "fifo", "lru or tinylfu"}, {"--kv-g4", "disk", "peers, grid or none"},
                {"--router", "nearest", "kv-approx"}, {"--kernel-warmup-seconds", "-1", "must not be negative"}}) {
            CliRun badOption = squall("serve", "--model", model.toString(), option[0], option[1]);
            assertThat(badOption.exitCode()).as(option[0]).isNotZero();
            assertThat(badOption.err()).as(option[0]).contains(option[2]);
        }

        for (String[] command : new String[][] {{"bench", "profile"}, {"planner", "simulate"}, {"planner"}, {"worker"}}) {
            String[] args = Arrays.copyOf(command, command.length + 2);
            args[command.length] = "--model";
            args[command.length + 1] = "hf:owner-only";
            CliRun badName = squall(args);
            assertThat(badName.exitCode()).as(String.join(" ", command)).isNotZero();
            assertThat(badName.err()).as("every --model takes the same forms").contains("hf:OWNER/REPO/FILE.gguf");
        }

        CliRun noInput = squall("run", "--model", model.toString());
        assertThat(noInput.exitCode()).isNotZero();

        CliRun badRouter = squall("serve", "--model", model.toString(), "--router", "fastest");
        assertThat(badRouter.exitCode()).isNotZero();
        assertThat(badRouter.err()).contains("unknown router 'fastest'").contains("round-robin");

        CliRun tooMuchMemory = squall("serve", "--model", model.toString(), "--kv-host-bytes", Long.toString(1L << 50),
                "--host", "127.0.0.1", "--http-port", "0", "--rsocket-port", "0", "--rsocket-ws-port", "0", "--grid-port", "0");
        assertThat(tooMuchMemory.exitCode()).isNotZero();
        assertThat(tooMuchMemory.err()).as("one line, not an internal error")
                .contains("squall serve: worker 0 failed to start: the KV tiers take").contains("--kv-host-bytes")
                .doesNotContain("internal error");
    }
}
