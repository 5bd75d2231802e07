package io.squall.bench;

import io.squall.functions.engine.model.ForwardPass;
import io.squall.functions.engine.model.KernelWarmup;
import io.squall.functions.engine.model.KvCache;
import io.squall.functions.engine.model.Model;
import io.squall.functions.engine.model.Transformer;
import io.squall.kernels.Kernels;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * What {@link KernelWarmup} buys a fresh JVM, and that the code its miniature leaves compiled is as fast as the code
 * the model itself would have had compiled: in a fresh process, optionally warms the kernels up, then times rounds of a
 * 64-token prefill and 64 decode steps on the model itself, and prints the first round's and the median of the second
 * half's prefill and decode tokens/s. Run it once with {@code warm} and once with {@code cold}, each in its own JVM.
 *
 * <p>Usage: {@code java --add-modules jdk.incubator.vector -cp … io.squall.bench.KernelWarmupCheck MODEL.gguf warm|cold
 * [ROUNDS, default 16]}.
 */
public final class KernelWarmupCheck {

    private static final int PROMPT = 64;
    private static final int STEPS = 64;

    private KernelWarmupCheck() {
    }

    public static void main(String[] args) {
        boolean warm = switch (args[1]) {
            case "warm" -> true;
            case "cold" -> false;
            default -> throw new IllegalArgumentException("the second argument is warm or cold, got " + args[1]);
        };
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 16;
        try (Model model = Model.load(Path.of(args[0])); Kernels kernels = Kernels.best()) {
            Transformer transformer = new Transformer(model.config(), model.weights(), kernels, PROMPT + STEPS);
            String warmup = "none";
            if (warm) {
                KernelWarmup.Report report = KernelWarmup.run(model.config(), model.weights(), kernels,
                        Duration.ofSeconds(30));
                warmup = String.format(Locale.ROOT, "%d ms, %d rounds%s", report.elapsed().toMillis(), report.rounds(),
                        report.settled() ? "" : ", at the limit");
            }
            int[] prompt = new SplittableRandom(1).ints(PROMPT, 0, model.config().vocabSize()).toArray();
            float[] logits = new float[model.config().vocabSize()];
            double[] prefill = new double[rounds];
            double[] decode = new double[rounds];
            int[] token = new int[1];
            for (int r = 0; r < rounds; r++) {
                KvCache cache = transformer.newCache(PROMPT + STEPS);
                long start = System.nanoTime();
                transformer.forward(List.of(new ForwardPass.Segment(cache, prompt, 0, PROMPT, logits)));
                prefill[r] = PROMPT * 1e9 / (System.nanoTime() - start);
                start = System.nanoTime();
                for (int s = 0; s < STEPS; s++) {
                    token[0] = prompt[s];
                    transformer.forward(List.of(new ForwardPass.Segment(cache, token, 0, 1, logits)));
                }
                decode[r] = STEPS * 1e9 / (System.nanoTime() - start);
            }
            System.out.printf(Locale.ROOT, "%s warm-up %s; first round prefill %.0f decode %.0f tokens/s; second half's "
                    + "median prefill %.0f decode %.0f%n", model.name(), warmup, prefill[0], decode[0],
                    secondHalfMedian(prefill), secondHalfMedian(decode));
        }
    }

    private static double secondHalfMedian(double[] values) {
        double[] half = Arrays.copyOfRange(values, values.length / 2, values.length);
        Arrays.sort(half);
        return half[half.length / 2];
    }
}
