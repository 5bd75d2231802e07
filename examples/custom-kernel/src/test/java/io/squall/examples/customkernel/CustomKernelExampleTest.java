package io.squall.examples.customkernel;

import io.squall.functions.engine.model.Architecture;
import io.squall.functions.engine.model.ForwardPass;
import io.squall.functions.engine.model.Model;
import io.squall.functions.engine.model.RandomModel;
import io.squall.functions.engine.model.Transformer;
import io.squall.kernels.GgmlType;
import io.squall.kernels.Kernels;
import io.squall.kernels.custom.CustomKernel;
import io.squall.kernels.reference.ReferenceKernels;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The example's kernels on the executor {@code Kernels.best()} picks (the CPU executor in the default
 * build; the TornadoVM executor, compiling them for its device, in a build and JVM with TornadoVM),
 * checked against plain formulas and against the reference executor.
 */
class CustomKernelExampleTest {

    private static final int[] PROMPT = {3, 17, 42, 99, 7, 250};

    @TempDir
    static Path dir;

    private static Model model;

    @BeforeAll
    static void writeModel() {
        Path file = dir.resolve("tiny.gguf");
        // F32 weights: before quantized ones the CPU executor rounds activations to 8 bits (as llama.cpp does) and
        // the reference executor does not, a difference that is not what these tests are about
        RandomModel.write(new RandomModel.Spec(Architecture.LLAMA, new RandomModel.Shape(64, 2, 4, 2, 128, 256),
                GgmlType.F32, null, 11), file);
        model = Model.load(file);
    }

    @AfterAll
    static void closeModel() {
        model.close();
    }

    /** The last position's logits of {@link #PROMPT}, with {@code setup} applied to the transformer first. */
    private static float[] logits(Kernels kernels, java.util.function.Consumer<Transformer> setup) {
        Transformer transformer = new Transformer(model.config(), model.weights(), kernels, 64);
        setup.accept(transformer);
        float[] logits = new float[model.config().vocabSize()];
        transformer.forward(List.of(new ForwardPass.Segment(transformer.newCache(), PROMPT, 0, PROMPT.length, logits)));
        return logits;
    }

    @Test
    void theSoftCapRunsDirectlyOnTheActiveExecutor() {
        float[] x = {-3f, -0.5f, 0f, 0.25f, 8f};
        float[] caps = {1f, 1f, 2f, 2f, 4f};
        float[] expected = new float[x.length];
        for (int i = 0; i < x.length; i++) {
            expected[i] = (float) (caps[i] * Math.tanh(x[i] / caps[i]));
        }
        try (Kernels kernels = Kernels.best()) {
            kernels.run(MyKernels.softCap(), x, caps, x.length);
        }
        for (int i = 0; i < x.length; i++) {
            assertThat(x[i]).as("element %d", i).isCloseTo(expected[i], within(1e-5f));
        }
    }

    @Test
    void aLogitsTransformSoftCapsEveryLogitBeforeSampling() {
        int vocab = model.config().vocabSize();
        try (Kernels kernels = Kernels.best()) {
            float[] plain = logits(kernels, t -> { });
            float largest = 0f;
            for (float l : plain) {
                largest = Math.max(largest, Math.abs(l));
            }
            float cap = largest / 2; // so that the cap bites on the largest logits
            float[] caps = new float[vocab];
            Arrays.fill(caps, cap);
            float[] capped = logits(kernels, t -> t.setLogitsTransform(MyKernels.softCap(), caps));
            for (int i = 0; i < vocab; i++) {
                assertThat(capped[i]).as("logit %d", i)
                        .isCloseTo((float) (cap * Math.tanh(plain[i] / cap)), within(1e-5f * largest));
                assertThat(Math.abs(capped[i])).isLessThanOrEqualTo(cap);
            }
        }
    }

    @Test
    void gegluReplacesSiluOnTheActiveExecutorAsOnTheReference() {
        CustomKernel geglu = MyKernels.geluMul();
        float[] silu;
        float[] active;
        try (Kernels kernels = Kernels.best()) {
            silu = logits(kernels, t -> { });
            active = logits(kernels, t -> t.setActivation(geglu));
        }
        float[] reference = logits(new ReferenceKernels(), t -> t.setActivation(geglu));
        double largest = 0;
        double differenceFromSilu = 0;
        for (int i = 0; i < active.length; i++) {
            largest = Math.max(largest, Math.abs(reference[i]));
            differenceFromSilu = Math.max(differenceFromSilu, Math.abs(active[i] - silu[i]));
        }
        for (int i = 0; i < active.length; i++) {
            assertThat(active[i]).as("logit %d", i).isCloseTo(reference[i], within((float) (1e-3 * largest)));
        }
        assertThat(differenceFromSilu).as("GEGLU changes the logits").isGreaterThan(1e-3 * largest);
    }
}
