package io.squall.gateway.preprocess;

import io.squall.functions.api.FinishReason;
import io.squall.functions.api.TokenChunk;
import io.squall.functions.engine.model.Architecture;
import io.squall.functions.engine.model.Model;
import io.squall.functions.engine.model.RandomModel;
import io.squall.functions.engine.tokenizer.Tokenizer;
import io.squall.functions.engine.tokenizer.Tokenizers;
import io.squall.kernels.GgmlType;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

class TextStreamTest {

    @TempDir
    static Path dir;
    private static Tokenizer tokenizer;

    @BeforeAll
    static void vocabulary() {
        Path file = dir.resolve("v.gguf");
        RandomModel.write(new RandomModel.Spec(Architecture.LLAMA, new RandomModel.Shape(32, 1, 2, 2, 32, 64),
                GgmlType.F32, null, 1), file);
        try (Model model = Model.load(file)) {
            tokenizer = Tokenizers.fromGguf(model.metadata());
        }
    }

    /** One chunk per UTF-8 byte of {@code text} (byte-level vocabulary: id = byte), then the end. */
    private static Flux<TokenChunk> bytes(String text, AtomicBoolean cancelled) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        return Flux.range(0, bytes.length)
                .map(i -> new TokenChunk(new int[] {bytes[i] & 0xFF}, List.of(), null, null))
                .concatWith(Flux.just(new TokenChunk(new int[0], List.of(), FinishReason.LENGTH,
                        new TokenChunk.Usage(3, bytes.length, 2))))
                .doOnCancel(() -> cancelled.set(true));
    }

    @Test
    void neverEmitsHalfACharacterAndReportsTheWorkersUsage() {
        AtomicBoolean cancelled = new AtomicBoolean();
        List<TextDelta> deltas = TextStream.of(bytes("añ€😀", cancelled), tokenizer, List.of(), 3, () -> { })
                .collectList().block();
        assertThat(deltas).extracting(TextDelta::text).containsExactly("a", "ñ", "€", "😀", "");
        assertThat(deltas.getLast().finishReason()).isEqualTo(FinishReason.LENGTH);
        assertThat(deltas.getLast().usage().cachedTokens()).isEqualTo(2);
        assertThat(deltas.stream().mapToInt(TextDelta::tokens).sum()).isEqualTo("añ€😀".getBytes(StandardCharsets.UTF_8).length);
    }

    @Test
    void aStopStringEndsTheStreamHidesItselfAndCancelsTheUpstream() {
        AtomicBoolean cancelled = new AtomicBoolean();
        AtomicInteger stops = new AtomicInteger();
        StepVerifier.create(TextStream.of(bytes("hello STOP more", cancelled), tokenizer, List.of("STOP", "xyz"), 3,
                        stops::incrementAndGet).map(TextDelta::text).reduce(String::concat))
                .expectNext("hello ")
                .verifyComplete();
        assertThat(cancelled).isTrue();
        assertThat(stops).hasValue(1);
    }

    @Test
    void aHeldBackPrefixThatIsNotAStopIsReleasedAtTheEnd() {
        List<TextDelta> deltas = TextStream.of(bytes("abST", new AtomicBoolean()), tokenizer, List.of("STOP"), 3, () -> { })
                .collectList().block();
        assertThat(deltas).extracting(TextDelta::text).containsExactly("a", "b", "ST");
        assertThat(deltas.getLast().isLast()).isTrue();
    }

    @Test
    void generatedTextKeepsItsFirstLeadingSpaceAsLlamaCppStreamsIt() throws Exception {
        // llama.cpp's greedy continuation of "Once upon a time" on stories260K, from its second token
        // (" there"): the server streams each token's piece, so the text starts with a space.
        Path reference = Path.of(System.getProperty("squall.reference.dir", "../../shared/reference"));
        Assumptions.assumeTrue(Files.isDirectory(reference), "reference data absent at " + reference.toAbsolutePath()
                + "; skipping");
        List<String> lines = Files.readAllLines(reference.resolve("logits/stories260K.txt"));
        int[] ids = lines.stream().filter(l -> l.startsWith("greedy_64_ids:")).findFirst().map(l -> Arrays.stream(
                l.substring(l.indexOf(':') + 1).trim().split("\\s+")).mapToInt(Integer::parseInt).toArray()).orElseThrow();
        String pieces = lines.stream().filter(l -> l.startsWith("greedy_64_pieces:")).findFirst().orElseThrow();
        Matcher piece = Pattern.compile("\\[([^\\]\\\\]*)\\]").matcher(pieces);
        StringBuilder expected = new StringBuilder();
        int count = 12; // " there was a little girl named Lily. She": pieces without brackets or escapes
        for (int i = 0; i < count && piece.find(); i++) {
            if (i > 0) {
                expected.append(piece.group(1));
            }
        }
        Tokenizer spm;
        try (Model model = Model.load(reference.resolve("models/stories260K.gguf"))) {
            spm = Tokenizers.fromGguf(model.metadata());
        }
        Flux<TokenChunk> continuation = Flux.range(1, count - 1)
                .map(i -> new TokenChunk(new int[] {ids[i]}, List.of(), null, null))
                .concatWith(Flux.just(new TokenChunk(new int[0], List.of(), FinishReason.LENGTH,
                        new TokenChunk.Usage(5, count - 1, 0))));
        String text = TextStream.of(continuation, spm, List.of(), 5, () -> { }).map(TextDelta::text)
                .reduce(String::concat).block();
        assertThat(expected.toString()).startsWith(" there");
        assertThat(text).isEqualTo(expected.toString());
    }

    @Test
    void demandIsPassedThrough() {
        StepVerifier.create(TextStream.of(bytes("abcdef", new AtomicBoolean()), tokenizer, List.of(), 3, () -> { }), 2)
                .expectNextCount(2)
                .thenRequest(1)
                .expectNextCount(1)
                .thenCancel()
                .verify();
    }
}
