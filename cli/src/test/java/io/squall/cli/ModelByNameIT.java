package io.squall.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.squall.cli.model.HubStandIn;
import io.squall.functions.engine.model.Architecture;
import io.squall.functions.engine.model.RandomModel;
import io.squall.kernels.GgmlType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static io.squall.cli.CliRun.squall;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code --model hf:OWNER/REPO/FILE.gguf} through the {@code squall} commands, against the hub stand-in on loopback
 * ({@code -Dsquall.hf.endpoint}, as {@code HF_ENDPOINT} does for the launcher): the first command downloads into
 * the model cache, the next ones use the cached file.
 */
class ModelByNameIT {

    @TempDir
    Path dir;

    private HubStandIn hub;

    @BeforeEach
    void start() throws Exception {
        hub = new HubStandIn();
        System.setProperty("squall.hf.endpoint", hub.endpoint().toString());
        System.setProperty("squall.models.dir", dir.resolve("cache").toString());
    }

    @AfterEach
    void stop() {
        System.clearProperty("squall.hf.endpoint");
        System.clearProperty("squall.models.dir");
        hub.close();
    }

    @Test
    void commandsTakeAModelByNameDownloadingItOnce() throws Exception {
        Path local = dir.resolve("tiny.gguf");
        RandomModel.write(new RandomModel.Spec(Architecture.LLAMA, new RandomModel.Shape(64, 1, 4, 4, 64, 256),
                GgmlType.F32, null, 5), local);
        hub.hubFile("acme/tiny-models", "q8/tiny.gguf", Files.readAllBytes(local));
        String byName = "hf:acme/tiny-models/q8/tiny.gguf";

        CliRun tokenized = squall("tokenize", "--model", byName, "--text", "hello");
        assertThat(tokenized.exitCode()).as(tokenized.err()).isZero();
        assertThat(tokenized.out()).isEqualTo(squall("tokenize", "--model", local.toString(), "--text", "hello").out());
        assertThat(hub.gets.get()).as("downloaded once").isEqualTo(1);

        CliRun run = squall("run", "--model", byName, "--tokens", "1,2,3", "--max-tokens", "2", "--json");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(new ObjectMapper().readTree(run.out()).get("prompt_tokens").asInt()).isEqualTo(3);
        CliRun logits = squall("logits", "--model", byName, "--tokens", "1,2");
        assertThat(logits.exitCode()).as(logits.err()).isZero();
        assertThat(hub.gets.get()).as("later commands use the cached file").isEqualTo(1);
    }

    @Test
    void aMalformedNameOrAMissingModelIsOneLineAndANonZeroExit() {
        CliRun malformed = squall("tokenize", "--model", "hf:acme/tiny.gguf", "--text", "x");
        assertThat(malformed.exitCode()).isNotZero();
        assertThat(malformed.err()).contains("hf:OWNER/REPO/FILE.gguf");
        assertThat(hub.requests).isEmpty();

        CliRun missing = squall("run", "--model", "hf:acme/tiny-models/none.gguf", "--tokens", "1");
        assertThat(missing.exitCode()).isNotZero();
        assertThat(missing.err().strip().lines()).singleElement().asString()
                .startsWith("squall run: ").contains("hf:acme/tiny-models/none.gguf was not found (404)");
    }
}
