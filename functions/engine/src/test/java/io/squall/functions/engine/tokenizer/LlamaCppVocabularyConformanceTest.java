package io.squall.functions.engine.tokenizer;

import io.squall.functions.engine.gguf.GgufFile;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * llama.cpp's tokenizer conformance cases ({@code test-tokenizer-0}: every {@code .inp} string
 * encoded without BOS and without parsing special tokens must give the {@code .out} ids) on the
 * reference vocabularies in {@code ../shared/reference/tokenizer}. Skipped when that folder is absent.
 */
class LlamaCppVocabularyConformanceTest {

    private static final String SEPARATOR = "\n__ggml_vocab_test__\n";

    @TestFactory
    Stream<DynamicTest> sentencePieceVocabularyMatchesLlamaCpp() throws IOException {
        return cases("ggml-vocab-llama-spm.gguf");
    }

    @TestFactory
    Stream<DynamicTest> gpt2VocabularyMatchesLlamaCpp() throws IOException {
        return cases("ggml-vocab-gpt-2.gguf");
    }

    static Tokenizer load(Path gguf) {
        try (GgufFile file = GgufFile.open(gguf)) {
            return Tokenizers.fromGguf(file.metadata());
        }
    }

    static Path vocabulary(String name) {
        Path dir = Path.of(System.getProperty("squall.reference.dir", "../../../shared/reference")).resolve("tokenizer");
        Path file = dir.resolve(name);
        Assumptions.assumeTrue(Files.isRegularFile(file), "reference vocabulary absent at " + file.toAbsolutePath() + "; skipping");
        return file;
    }

    private static Stream<DynamicTest> cases(String name) throws IOException {
        Path gguf = vocabulary(name);
        String inputs = Files.readString(gguf.resolveSibling(name + ".inp"), StandardCharsets.UTF_8);
        List<String> outputs = Files.readAllLines(gguf.resolveSibling(name + ".out"), StandardCharsets.UTF_8);
        List<String> texts = new ArrayList<>(Arrays.asList(inputs.split(SEPARATOR, -1)));
        assertThat(texts.removeLast()).as("the .inp file ends with a separator").isEmpty();
        assertThat(texts).as("one expected line per input").hasSameSizeAs(outputs);
        Tokenizer tokenizer = load(gguf);
        List<DynamicTest> tests = new ArrayList<>();
        for (int i = 0; i < texts.size(); i++) {
            String text = texts.get(i);
            int[] expected = parseIds(outputs.get(i));
            tests.add(DynamicTest.dynamicTest("case " + i + ": " + printable(text), () ->
                    assertThat(tokenizer.encode(text, EncodeOptions.TEXT)).as(printable(text)).containsExactly(expected)));
        }
        return tests.stream();
    }

    private static int[] parseIds(String line) {
        String trimmed = line.trim();
        return trimmed.isEmpty() ? new int[0] : Arrays.stream(trimmed.split(" ")).mapToInt(Integer::parseInt).toArray();
    }

    private static String printable(String text) {
        String shown = text.replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r");
        return '"' + (shown.length() > 60 ? shown.substring(0, 60) + "…" : shown) + '"';
    }
}
