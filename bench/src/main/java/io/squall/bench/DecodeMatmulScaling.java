package io.squall.bench;

import io.squall.functions.engine.model.Model;
import io.squall.functions.engine.model.ModelConfig;
import io.squall.functions.engine.model.ModelWeights;
import io.squall.kernels.Kernels;
import io.squall.kernels.WeightMatrix;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The ceiling that the matmuls alone put on batched decode: a decode step's matmuls (every layer's Q, K, V, O,
 * gate, up and down, then the output matrix) over a model file's real weights, at several batch sizes, with no
 * attention, sampling or scheduling. At batch 1 they stream every weight once per token (bandwidth-bound); at
 * batch B they stream them once per B tokens and the FMAs become the limit, so tokens/s at B over tokens/s at
 * 1 bounds how far batching can scale the whole step on this machine.
 *
 * <p>Usage: {@code java --add-modules jdk.incubator.vector -cp … io.squall.bench.DecodeMatmulScaling MODEL.gguf
 * [batch sizes, default 1,4,16,32]}; prints ms per step, tokens/s and GFLOP/s per batch size (median of 7 rounds).
 */
public final class DecodeMatmulScaling {

    private DecodeMatmulScaling() {
    }

    public static void main(String[] args) {
        int[] batches = args.length > 1 ? Arrays.stream(args[1].split(",")).mapToInt(Integer::parseInt).toArray()
                : new int[] {1, 4, 16, 32};
        try (Model model = Model.load(Path.of(args[0])); Kernels kernels = Kernels.best()) {
            ModelConfig config = model.config();
            ModelWeights weights = model.weights();
            List<WeightMatrix> matrices = weights.matrices();
            long macsPerToken = 0;
            for (WeightMatrix w : matrices) {
                macsPerToken += (long) w.rows() * w.cols();
            }
            kernels.prepare(matrices); // as the engine does: the CPU executor repacks Q4_0, Q4_K and Q6_K here
            System.out.printf(Locale.ROOT, "model %s, kernels %s, %.1fM multiply-adds per token%n", model.name(),
                    kernels.name(), macsPerToken / 1e6);
            int widest = Math.max(config.ffnDim(), Math.max(config.dim(), config.vocabSize()));
            for (int batch : batches) {
                float[] x = new float[batch * widest];
                SplittableRandom random = new SplittableRandom(batch);
                for (int i = 0; i < x.length; i++) {
                    x[i] = (float) random.nextGaussian();
                }
                float[] out = new float[batch * widest];
                step(matrices, kernels, x, out, batch); // warm-up: compile both matmul paths
                double[] millis = new double[7];
                for (int round = 0; round < millis.length; round++) {
                    int steps = Math.max(4, 64 / batch);
                    long start = System.nanoTime();
                    for (int s = 0; s < steps; s++) {
                        step(matrices, kernels, x, out, batch);
                    }
                    millis[round] = (System.nanoTime() - start) / 1e6 / steps;
                }
                Arrays.sort(millis);
                double ms = millis[millis.length / 2];
                System.out.printf(Locale.ROOT, "batch=%d ms/step=%.2f tokens/s=%.0f GFLOP/s=%.1f%n", batch, ms,
                        batch * 1000 / ms, 2.0 * macsPerToken * batch / (ms * 1e6));
            }
        }
    }

    /** One decode step's matmuls; inputs and outputs are reused, as only the weight traffic and FMAs matter. */
    private static void step(List<WeightMatrix> matrices, Kernels kernels, float[] x, float[] out, int batch) {
        for (WeightMatrix w : matrices) {
            kernels.matmul(w, x, out, batch);
        }
    }
}
