package io.squall.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.squall.functions.engine.model.Architecture;
import io.squall.functions.engine.model.RandomModel;
import io.squall.kernels.GgmlType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code squall bench chaos} from the packaged jar, on mock workers: a gateway, a cluster member and three workers as
 * separate processes; a worker killed ({@code SIGKILL}) and a worker hung ({@code SIGSTOP}) under streaming load.
 * Every request ends identical to its uninterrupted output or with a typed error, none is lost, and no KV page is
 * left held. No timing is asserted: the deadlines are generous, the figures are the suite's own report.
 */
class ChaosIT {

    @TempDir
    Path dir;

    @Test
    void aKilledAndAHungWorkerLoseNoRequestAndLeakNoPage() throws Exception {
        Path model = dir.resolve("m.gguf");
        RandomModel.write(new RandomModel.Spec(Architecture.LLAMA, new RandomModel.Shape(64, 2, 4, 4, 128, 512),
                GgmlType.F32, null, 14), model);
        Path out = dir.resolve("chaos.out");
        Path err = dir.resolve("chaos.err");
        Process chaos = new ProcessBuilder(SquallJar.command("bench", "chaos", "--model", model.toString(),
                "--profile", Path.of("..", "examples", "profiles", "llama-124m-q8_0-cpu2.json").toString(),
                "--faults", "kill-worker,pause-worker", "--users", "4", "--prompts", "8", "--isl", "48", "--osl", "32",
                "--fault-seconds", "12", "--after-seconds", "1", "--deadline-seconds", "120",
                "--dir", dir.resolve("stages").toString()))
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        try {
            assertThat(chaos.waitFor(10, TimeUnit.MINUTES)).as("the chaos run ends").isTrue();
        } finally {
            chaos.destroyForcibly();
        }
        String log = Files.readString(err, StandardCharsets.UTF_8);
        assertThat(chaos.exitValue()).as(log).isZero();
        JsonNode report = new ObjectMapper().readTree(Files.readString(out, StandardCharsets.UTF_8));
        assertThat(report.path("clean").asBoolean()).as(log).isTrue();
        assertThat(report.path("faults")).extracting(f -> f.path("fault").asText())
                .containsExactly("kill-worker", "pause-worker");
        for (JsonNode fault : report.path("faults")) {
            assertThat(fault.path("sent").asLong()).as("%s: requests sent", fault).isPositive();
            assertThat(fault.path("lost").asLong()).as("%s: lost", fault).isZero();
            assertThat(fault.path("duplicated_or_missing").asLong()).as("%s: duplicated or missing tokens", fault).isZero();
            assertThat(fault.path("leaked_pages").asLong()).as("%s: leaked KV pages", fault).isZero();
            long typed = 0;
            for (JsonNode count : fault.path("typed_failures")) {
                typed += count.asLong();
            }
            assertThat(fault.path("identical").asLong() + typed).as("%s: every request identical or a typed failure", fault)
                    .isEqualTo(fault.path("sent").asLong());
        }
    }
}
