package io.squall.cli.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MooncakeTraceTest {

    private static final int[] ALPHABET = {11, 12, 13, 14, 15, 16, 17, 18, 19, 20};

    @TempDir
    Path dir;

    private Path trace(String... lines) throws IOException {
        Path file = dir.resolve("trace.jsonl");
        Files.write(file, Arrays.asList(lines));
        return file;
    }

    @Test
    void readsRequestsInTimestampOrderAndRecognisesTheFormat() throws IOException {
        Path file = trace(
                "{\"timestamp\": 900, \"input_length\": 10, \"output_length\": 3, \"hash_ids\": [7]}",
                "",
                "{\"timestamp\": 100, \"input_length\": 20, \"output_length\": 5, \"hash_ids\": [1, 2]}");
        assertThat(MooncakeTrace.recognises(file)).isTrue();
        MooncakeTrace trace = MooncakeTrace.read(file, 16, ALPHABET, 1);
        assertThat(trace.entries()).extracting(MooncakeTrace.Entry::timestampMs).containsExactly(100L, 900L);
        assertThat(trace.entries().get(0).outputLength()).isEqualTo(5);
        assertThat(trace.prompt(0)).hasSize(20);
        assertThat(MooncakeTrace.recognises(trace("{\"prompt\": \"hi\", \"max_tokens\": 4}"))).isFalse();
    }

    @Test
    void equalHashIdsGiveEqualBlocksAfterAnEqualPrefixAndOthersDiffer() throws IOException {
        MooncakeTrace trace = MooncakeTrace.read(trace(
                "{\"timestamp\": 0, \"input_length\": 48, \"output_length\": 1, \"hash_ids\": [1, 2, 3]}",
                "{\"timestamp\": 1, \"input_length\": 40, \"output_length\": 1, \"hash_ids\": [1, 2, 4]}",
                "{\"timestamp\": 2, \"input_length\": 20, \"output_length\": 1, \"hash_ids\": [5, 2]}"), 16, ALPHABET, 42);
        int[] a = trace.prompt(0);
        int[] b = trace.prompt(1);
        int[] c = trace.prompt(2);
        assertThat(Arrays.copyOf(b, 32)).containsExactly(Arrays.copyOf(a, 32));
        assertThat(Arrays.copyOfRange(b, 32, 40)).isNotEqualTo(Arrays.copyOfRange(a, 32, 40));
        assertThat(Arrays.copyOf(c, 16)).isNotEqualTo(Arrays.copyOf(a, 16));
        assertThat(Arrays.stream(a).allMatch(t -> t >= 11 && t <= 20)).isTrue();
        // the same trace and seed give the same prompts; another seed others
        assertThat(MooncakeTrace.read(trace("{\"timestamp\": 0, \"input_length\": 48, \"output_length\": 1, "
                + "\"hash_ids\": [1, 2, 3]}"), 16, ALPHABET, 42).prompt(0)).containsExactly(a);
        assertThat(MooncakeTrace.read(trace("{\"timestamp\": 0, \"input_length\": 48, \"output_length\": 1, "
                + "\"hash_ids\": [1, 2, 3]}"), 16, ALPHABET, 43).prompt(0)).isNotEqualTo(a);
    }

    @Test
    void aPromptLongerThanItsBlocksEndsInTokensOfItsOwn() throws IOException {
        MooncakeTrace trace = MooncakeTrace.read(trace(
                "{\"timestamp\": 0, \"input_length\": 40, \"output_length\": 1, \"hash_ids\": [9]}",
                "{\"timestamp\": 0, \"input_length\": 40, \"output_length\": 1, \"hash_ids\": [9]}"), 16, ALPHABET, 3);
        assertThat(Arrays.copyOf(trace.prompt(0), 16)).containsExactly(Arrays.copyOf(trace.prompt(1), 16));
        assertThat(Arrays.copyOfRange(trace.prompt(0), 16, 40)).isNotEqualTo(Arrays.copyOfRange(trace.prompt(1), 16, 40));
    }

    @Test
    void aMalformedLineIsNamed() throws IOException {
        Path file = trace("{\"timestamp\": 0, \"input_length\": 4, \"output_length\": 1, \"hash_ids\": [1]}",
                "{\"timestamp\": 5, \"input_length\": 0, \"output_length\": 1, \"hash_ids\": []}");
        assertThatThrownBy(() -> MooncakeTrace.read(file, 16, ALPHABET, 1)).hasMessageContaining("trace.jsonl:2")
                .hasMessageContaining("input_length");
    }
}
