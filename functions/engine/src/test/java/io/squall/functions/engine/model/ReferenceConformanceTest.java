package io.squall.functions.engine.model;

import io.squall.functions.engine.generate.Generator;
import io.squall.functions.engine.sampling.Sampler;
import io.squall.functions.engine.sampling.SamplingParams;
import io.squall.kernels.Kernels;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Squall's engine against llama.cpp's outputs in {@code ../shared/reference}: final-position logits
 * within the tolerances its README states, the same argmax, and the same greedy continuation where
 * the margins make it stable.
 */
class ReferenceConformanceTest {

    private static Kernels kernels;

    @BeforeAll
    static void startKernels() {
        kernels = Kernels.best();
    }

    @AfterAll
    static void stopKernels() {
        kernels.close();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
            // model, max |Δlogit|, min cosine, greedy tokens that must match
            "stories260K, 1e-4, 0.999999, 64",
            "tiny-llama-spm-f32, 1e-4, 0.999999, 16",
            "tiny-llama-spm-q8_0, 1e-2, 0.9999, 0",
            "tiny-llama-spm-q4_0, 1e-2, 0.9999, 0",
    })
    void matchesLlamaCpp(String name, double maxAbsDiff, double minCosine, int greedyToCompare) {
        ReferenceOutputs expected = ReferenceOutputs.load(name);
        try (Model model = Model.load(expected.model())) {
            Transformer transformer = new Transformer(model.config(), model.weights(), kernels, 512);
            KvCache cache = transformer.newCache();
            float[] logits = new float[model.config().vocabSize()];
            int[] prompt = expected.promptIds();
            transformer.forward(List.of(new ForwardPass.Segment(cache, prompt, 0, prompt.length, logits)));

            assertThat(logits.length).isEqualTo(expected.logits().length);
            double maxDiff = 0;
            double dot = 0;
            double normA = 0;
            double normB = 0;
            int argmax = 0;
            for (int i = 0; i < logits.length; i++) {
                maxDiff = Math.max(maxDiff, Math.abs(logits[i] - expected.logits()[i]));
                dot += (double) logits[i] * expected.logits()[i];
                normA += (double) logits[i] * logits[i];
                normB += (double) expected.logits()[i] * expected.logits()[i];
                if (logits[i] > logits[argmax]) {
                    argmax = i;
                }
            }
            double cosine = dot / Math.sqrt(normA * normB);
            assertThat(maxDiff).as("max |logit - llama.cpp|").isLessThanOrEqualTo(maxAbsDiff);
            assertThat(cosine).as("cosine similarity").isGreaterThanOrEqualTo(minCosine);
            assertThat(argmax).as("argmax").isEqualTo(expected.argmax());

            if (greedyToCompare > 0) {
                Generator generator = new Generator(transformer, 4);
                Generator.Result result = generator.generate(prompt, new Sampler(SamplingParams.greedy(),
                        model.config().vocabSize()), greedyToCompare, token -> false, token -> { });
                assertThat(result.tokens()).containsExactly(java.util.Arrays.copyOf(expected.greedyIds(), greedyToCompare));
            }
        }
    }
}
