package io.squall.functions.engine.mock;

import io.squall.functions.engine.tokenizer.Vocabulary;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class MockTokensTest {

    @TempDir
    static Path dir;

    private static Vocabulary vocabulary;

    @BeforeAll
    static void vocabulary() {
        vocabulary = BuiltInVocabulary.read(dir);
    }

    @Test
    void theNextTokenIsAFunctionOfThePrefixAloneAndGreedyPicksIt() {
        MockTokens one = MockTokens.of(vocabulary);
        MockTokens other = MockTokens.of(vocabulary);
        long seed = System.nanoTime();
        SplittableRandom random = new SplittableRandom(seed);
        int[] tokens = random.ints(40, 0, 256).toArray();
        float[] logits = new float[vocabulary.size()];
        for (int length = 1; length <= tokens.length; length++) {
            one.writeLogits(tokens, length, logits);
            assertThat(argmax(logits)).as("seed %d length %d", seed, length).isEqualTo(other.next(tokens, length));
        }
        int[] changed = tokens.clone();
        changed[0] ^= 1;
        long differing = java.util.stream.IntStream.rangeClosed(1, 40)
                .filter(n -> one.next(tokens, n) != one.next(changed, n)).count();
        assertThat(differing).as("an earlier token changes what follows").isGreaterThan(30);
    }

    @Test
    void neverProposesAControlTokenSoAMockSequenceEndsOnlyByItsBudget() {
        MockTokens mock = MockTokens.of(vocabulary);
        float[] logits = new float[vocabulary.size()];
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 2000; i++) {
            int[] prefix = random.ints(8, 0, 256).toArray();
            mock.writeLogits(prefix, prefix.length, logits);
            for (int id = 256; id < vocabulary.size(); id++) {
                assertThat(logits[id]).isZero();
            }
        }
    }

    @Test
    void aReusedBufferHoldsOnlyTheCurrentCandidatesAboveTheFloor() {
        MockTokens mock = MockTokens.of(vocabulary);
        float[] logits = new float[vocabulary.size()];
        Arrays.fill(logits, 123f); // whatever the sampler left there
        for (int n = 1; n < 50; n++) {
            mock.writeLogits(new int[] {n, n + 1, n + 2}, 3, logits);
            long raised = java.util.stream.IntStream.range(0, logits.length).filter(i -> logits[i] != 0f).count();
            assertThat(raised).isBetween(1L, (long) MockTokens.CANDIDATES);
        }
    }

    private static int argmax(float[] logits) {
        int best = 0;
        for (int i = 1; i < logits.length; i++) {
            if (logits[i] > logits[best]) {
                best = i;
            }
        }
        return best;
    }
}
