package io.squall.functions.engine.sampling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SamplerTest {
    private static final TokenHistory EMPTY = new TokenHistory(0);

    @Test
    void greedyReturnsTheArgmaxAndTheLowestIdOnTies() {
        Sampler sampler = new Sampler(SamplingParams.greedy(), 5);
        assertThat(sampler.sample(new float[] {0.1f, 3f, -2f, 2.9f, 1f}, EMPTY)).isEqualTo(1);
        assertThat(sampler.sample(new float[] {1f, 5f, 5f, -1f, 5f}, EMPTY)).isEqualTo(1);
        assertThat(sampler.sample(new float[] {Float.NEGATIVE_INFINITY, -3f, Float.NEGATIVE_INFINITY, -4f, -9f},
                EMPTY)).isEqualTo(1);
    }

    @Test
    void repetitionPenaltyDividesPositiveAndMultipliesNegativeLogits() {
        // Without the penalty token 0 wins (2.0 > 1.5). Penalty 2 on tokens {0, 2}: 2.0 -> 1.0, -0.5 -> -1.0.
        SamplingParams params = SamplingParams.builder().temperature(0).repetitionPenalty(2.0).build();
        float[] logits = {2.0f, 1.5f, -0.5f, -0.7f};
        int token = new Sampler(params, 4).sample(logits, TokenHistory.of(0, 2, 0));
        assertThat(token).isEqualTo(1);
        assertThat(logits).containsExactly(1.0f, 1.5f, -1.0f, -0.7f);
    }

    @Test
    void presenceAndFrequencyPenaltiesSubtractAsInOpenAi() {
        // token 0 seen 3 times: 2.0 - (3 * 0.5 + 0.25) = 0.25; token 1 seen once: 1.0 - (0.5 + 0.25) = 0.25.
        SamplingParams params = SamplingParams.builder().temperature(0)
                .presencePenalty(0.25).frequencyPenalty(0.5).build();
        float[] logits = {2.0f, 1.0f, 0.3f};
        int token = new Sampler(params, 3).sample(logits, TokenHistory.of(0, 1, 0, 0));
        assertThat(logits[0]).isCloseTo(0.25f, within(1e-6f));
        assertThat(logits[1]).isCloseTo(0.25f, within(1e-6f));
        assertThat(logits[2]).isEqualTo(0.3f);
        assertThat(token).isEqualTo(2);
    }

    @Test
    void penaltiesOnlyLookAtTheLastNTokens() {
        SamplingParams params = SamplingParams.builder().temperature(0).presencePenalty(1).penaltyLastN(2).build();
        float[] logits = {2.0f, 1.0f, 0.0f};
        new Sampler(params, 3).sample(logits, TokenHistory.of(0, 1, 2));
        assertThat(logits).containsExactly(2.0f, 0.0f, -1.0f);

        SamplingParams whole = SamplingParams.builder().temperature(0).presencePenalty(1).penaltyLastN(-1).build();
        float[] all = {2.0f, 1.0f, 0.0f};
        new Sampler(whole, 3).sample(all, TokenHistory.of(0, 1, 2));
        assertThat(all).containsExactly(1.0f, 0.0f, -1.0f);
    }

    @Test
    void topKKeepsOnlyTheKBestTokens() {
        float[] logits = ramp(100);
        Set<Integer> allowed = Set.of(99, 98, 97);
        for (long seed = 0; seed < 300; seed++) {
            SamplingParams params = SamplingParams.builder().temperature(5).topK(3).seed(seed).build();
            assertThat(new Sampler(params, 100).sample(logits.clone(), EMPTY)).isIn(allowed);
        }
    }

    @Test
    void topPKeepsTheSmallestSetReachingTheMass() {
        // Probabilities 0.5, 0.3, 0.15, 0.05: top-p 0.75 keeps {0, 1}; 0.8 is reached exactly with {0, 1}.
        float[] logits = logs(0.5, 0.3, 0.15, 0.05);
        for (double topP : new double[] {0.75, 0.8}) {
            for (long seed = 0; seed < 300; seed++) {
                SamplingParams params = SamplingParams.builder().topP(topP).seed(seed).build();
                assertThat(new Sampler(params, 4).sample(logits.clone(), EMPTY)).isIn(0, 1);
            }
        }
    }

    @Test
    void topPWithoutTopKGrowsTheSelectionForFlatDistributions() {
        // 1000 equal logits: a 0.5 nucleus needs 500 tokens, more than the first partial selection.
        float[] logits = new float[1_000];
        int maxSeen = 0;
        for (long seed = 0; seed < 2_000; seed++) {
            SamplingParams params = SamplingParams.builder().topP(0.5).seed(seed).build();
            maxSeen = Math.max(maxSeen, new Sampler(params, logits.length).sample(logits.clone(), EMPTY));
        }
        assertThat(maxSeen).isBetween(450, 499);
    }

    @Test
    void minPDropsTokensBelowAFractionOfTheBest() {
        // Probability ratios to the best: 1, 0.5, 0.2, 0.05 -> min-p 0.1 keeps {0, 1, 2}.
        float[] logits = logs(1, 0.5, 0.2, 0.05);
        boolean sawTwo = false;
        for (long seed = 0; seed < 500; seed++) {
            SamplingParams params = SamplingParams.builder().minP(0.1).seed(seed).build();
            int token = new Sampler(params, 4).sample(logits.clone(), EMPTY);
            assertThat(token).isIn(0, 1, 2);
            sawTwo |= token == 2;
        }
        assertThat(sawTwo).isTrue();
    }

    @Test
    void truncationStagesCombine() {
        // top-k 50 of a ramp, then top-p, then min-p: the support shrinks to the best few.
        float[] logits = ramp(1_000);
        for (long seed = 0; seed < 300; seed++) {
            SamplingParams params = SamplingParams.builder().topK(50).topP(0.9).minP(0.2).seed(seed).build();
            int token = new Sampler(params, logits.length).sample(logits.clone(), EMPTY);
            // ramp step 0.1: min-p 0.2 keeps tokens within ln(5) ~ 1.61 of the best, i.e. 16 tokens.
            assertThat(token).isBetween(999 - 16, 999);
        }
    }

    @Test
    void frequenciesFollowTheProbabilities() {
        float[] logits = logs(0.6, 0.3, 0.1);
        int[] counts = new int[3];
        int draws = 20_000;
        Sampler sampler = new Sampler(SamplingParams.builder().seed(7L).build(), 3);
        for (int i = 0; i < draws; i++) {
            counts[sampler.sample(logits.clone(), EMPTY)]++;
        }
        assertThat(counts[0] / (double) draws).isCloseTo(0.6, within(0.02));
        assertThat(counts[1] / (double) draws).isCloseTo(0.3, within(0.02));
        assertThat(counts[2] / (double) draws).isCloseTo(0.1, within(0.02));
    }

    @Test
    void temperatureSharpensTheDistribution() {
        float[] logits = logs(0.6, 0.3, 0.1);
        int[] counts = new int[3];
        Sampler sampler = new Sampler(SamplingParams.builder().temperature(0.25).seed(7L).build(), 3);
        for (int i = 0; i < 10_000; i++) {
            counts[sampler.sample(logits.clone(), EMPTY)]++;
        }
        // At T = 1/4 the probabilities become proportional to p^4: 0.6^4 / (0.6^4 + 0.3^4 + 0.1^4) ~ 0.94.
        assertThat(counts[0] / 10_000.0).isCloseTo(0.94, within(0.02));
    }

    @Test
    void aTemperatureWhoseInverseOverflowsDrawsTheArgmax() {
        // 1 / Double.MIN_VALUE is +Infinity: the argmax's weight must stay 1, not 0 * Infinity = NaN
        SamplingParams params = SamplingParams.builder().temperature(Double.MIN_VALUE).seed(7L).build();
        Sampler sampler = new Sampler(params, 4);
        for (int i = 0; i < 20; i++) {
            assertThat(sampler.sample(new float[] {0.5f, 3f, -1f, 2.5f}, EMPTY)).isEqualTo(1);
        }
        assertThat(sampler.sampleWithLogprobs(new float[] {0.5f, 3f, -1f, 2.5f}, EMPTY, 2).tokenId()).isEqualTo(1);
    }

    @Test
    void sameSeedGivesTheSameSequence() {
        float[] logits = ramp(500);
        SamplingParams params = SamplingParams.builder().temperature(30).topP(0.95).seed(1234L).build();
        Sampler first = new Sampler(params, 500);
        Sampler second = new Sampler(params, 500);
        Sampler other = new Sampler(SamplingParams.builder().temperature(30).topP(0.95).seed(99L).build(), 500);
        int[] a = new int[50];
        int[] b = new int[50];
        int[] c = new int[50];
        for (int i = 0; i < 50; i++) {
            a[i] = first.sample(logits.clone(), EMPTY);
            b[i] = second.sample(logits.clone(), EMPTY);
            c[i] = other.sample(logits.clone(), EMPTY);
        }
        assertThat(a).containsExactly(b);
        assertThat(a).isNotEqualTo(c);
    }

    @Test
    void logprobsAreTheLogSoftmaxAfterPenalties() {
        SamplingParams params = SamplingParams.builder().temperature(0).presencePenalty(1).build();
        float[] logits = {2f, 1f, 0f};
        SampledToken sampled = new Sampler(params, 3).sampleWithLogprobs(logits, TokenHistory.of(0), 2);
        // After the penalty the logits are {1, 1, 0}.
        double z = Math.log(2 * Math.E + 1);
        assertThat(sampled.tokenId()).isEqualTo(0);
        assertThat(sampled.logprob()).isCloseTo((float) (1 - z), within(1e-5f));
        assertThat(sampled.topLogprobs()).extracting(TokenLogprob::tokenId).containsExactly(0, 1);
        assertThat(sampled.topLogprobs().get(1).logprob()).isCloseTo((float) (1 - z), within(1e-5f));
    }

    @Test
    void logprobsIgnoreTemperatureAndCanBeEmpty() {
        float[] logits = logs(0.5, 0.25, 0.25);
        SampledToken sampled = new Sampler(SamplingParams.builder().temperature(0.1).seed(3L).build(), 3)
                .sampleWithLogprobs(logits, EMPTY, 0);
        assertThat(sampled.topLogprobs()).isEmpty();
        assertThat(Math.exp(sampled.logprob())).isCloseTo(sampled.tokenId() == 0 ? 0.5 : 0.25, within(1e-5));
    }

    @Test
    void rejectsBadInputsWithClearMessages() {
        Sampler sampler = new Sampler(SamplingParams.greedy(), 3);
        assertThatThrownBy(() -> sampler.sample(new float[4], EMPTY)).hasMessageContaining("expected 3 logits");
        assertThatThrownBy(() -> sampler.sample(new float[] {0, Float.NaN, 0}, EMPTY))
                .hasMessageContaining("token 1 is NaN");
        assertThatThrownBy(() -> sampler.sample(new float[] {0, 0, Float.POSITIVE_INFINITY}, EMPTY))
                .hasMessageContaining("+Infinity");
        float[] masked = {Float.NEGATIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NEGATIVE_INFINITY};
        assertThatThrownBy(() -> sampler.sample(masked, EMPTY)).hasMessageContaining("every logit is -Infinity");
        Sampler penalised = new Sampler(SamplingParams.builder().presencePenalty(1).build(), 3);
        assertThatThrownBy(() -> penalised.sample(new float[3], TokenHistory.of(5)))
                .hasMessageContaining("token id 5 in the history is outside the vocabulary of 3");
        assertThatThrownBy(() -> sampler.sampleWithLogprobs(new float[3], EMPTY, 4))
                .hasMessageContaining("topLogprobs");
        assertThatThrownBy(() -> new Sampler(SamplingParams.greedy(), 0)).hasMessageContaining("vocabularySize");
    }

    /** Logits 0, 0.1, 0.2, ...: token n-1 is the most likely. */
    @Test
    void logitBiasShiftsTheListedLogitsBeforeEverythingElse() {
        float[] logits = ramp(10); // token 9 is the argmax
        SamplingParams banTop = new SamplingParams(0, 0, 1, 0, 1, 0, 0, 0, null, Map.of(9, -100.0));
        assertThat(new Sampler(banTop, 10).sample(logits.clone(), EMPTY)).isEqualTo(8);

        SamplingParams forceLow = new SamplingParams(1.0, 0, 1, 0, 1, 0, 0, 0, 7L, Map.of(2, 100.0));
        Sampler sampler = new Sampler(forceLow, 10);
        for (int i = 0; i < 50; i++) {
            assertThat(sampler.sample(logits.clone(), EMPTY)).isEqualTo(2);
        }

        SampledToken biased = new Sampler(new SamplingParams(0, 0, 1, 0, 1, 0, 0, 0, null, Map.of(0, 0.05, 99, 3.0)), 10)
                .sampleWithLogprobs(logits.clone(), EMPTY, 10);
        float[] expected = logits.clone();
        expected[0] += 0.05f; // ids past the vocabulary are ignored
        double normalizer = 0;
        for (float l : expected) {
            normalizer += Math.exp(l);
        }
        assertThat(biased.logprob()).isCloseTo((float) (expected[9] - Math.log(normalizer)), within(1e-5f));
    }

    private static float[] ramp(int n) {
        float[] logits = new float[n];
        for (int i = 0; i < n; i++) {
            logits[i] = i * 0.1f;
        }
        return logits;
    }

    private static float[] logs(double... probabilities) {
        float[] logits = new float[probabilities.length];
        for (int i = 0; i < logits.length; i++) {
            logits[i] = (float) Math.log(probabilities[i]);
        }
        return logits;
    }
}
