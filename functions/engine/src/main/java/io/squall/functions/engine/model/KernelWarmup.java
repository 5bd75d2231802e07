package io.squall.functions.engine.model;

import io.squall.kernels.GgmlType;
import io.squall.kernels.Kernels;
import io.squall.kernels.WeightMatrix;
import io.squall.kernels.format.GgmlCodec;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;
import javax.management.JMException;
import javax.management.ObjectName;

/**
 * Has HotSpot compile the kernels a model runs before the model serves. Until C2 compiles them, the Vector API kernels
 * run 50–100× slower than compiled (each vector operation a call on a boxed vector): a fresh process's first 64-token
 * prompt of the 124.7M model took ~5 s to prefill, 35 times the warm time. This runs a miniature of the model instead:
 * the same architecture, head width and head grouping, the same weight format matrix by matrix, one layer for each
 * combination of formats the model's layers have, but 256 wide (its feed-forward 512), a 512-token vocabulary and
 * random weights, so that the slow runs before compilation are short. Each round prefills two sequences (40 tokens,
 * which take two-vector panels of the batched tiles and a one-vector remainder with 256- and with 512-bit vectors, and
 * 5), then runs eight decode steps of the first alone and eight of both together. After a round that made the JIT
 * queue a compilation of the engine's or the kernels' code, the warm-up waits until it is done (on two cores the
 * rounds would otherwise take the compiler threads' time: the warm-up took 4.8–6.0 s, against 3.9–4.9 waiting).
 * Rounds repeat until they stop getting faster with nothing left to compile, or the time limit passes. What the
 * warm-up prepared on the executor it releases.
 *
 * <p>A worker warms up before it registers, so that no request waits on the JIT: the first request's time to first
 * token is then the warm one, and the cost moves into the start-up (docs/BENCHMARKS.md has both).
 */
public final class KernelWarmup {

    /** Width of the miniature's residual stream: a multiple of every block size (32 and 256). */
    private static final int WIDTH = 256;
    /**
     * Width of its feed-forward: with two threads a 512-row matrix ends in a chunk of 8 rows, a tile of six and two
     * single rows, the remainder paths a real model's matrices take too; at 256 (a chunk of four left) the first prompt
     * of the 124.7M F32 model deoptimized the tile loop and ran at half its warm speed.
     */
    private static final int FFN = 2 * WIDTH;
    private static final int VOCAB = 512;
    /**
     * Prompt lengths of a round's two sequences, and the decode steps after them. The long one is two vectors of rows
     * and a remainder with 512-bit vectors (32 + 8) as with 256-bit ones (2 · 16 + 8): at 24 tokens, below the 32 rows
     * of a 512-bit broadcast panel, a 64-token prompt after the warm-up ran at 0.08–0.22 of its warm speed there.
     */
    private static final int LONG_PROMPT = 40;
    private static final int SHORT_PROMPT = 5;
    private static final int DECODE_STEPS = 16;
    /** The longest sequence a round runs, the miniature's context. */
    private static final int POSITIONS = LONG_PROMPT + DECODE_STEPS;
    /**
     * Settled: at least {@link #MIN_ROUNDS} rounds, {@link #STEADY_ROUNDS} since the fastest round last fell below
     * {@link #GAIN} of the one before, none compiling anything, the last within {@link #SLACK} of the fastest. Ending
     * at the first quiet queue stopped at rounds 5× slower than warm, the kernels not yet hot enough to be queued; and
     * the methods a forward pass calls once a layer (the residual add, SiLU) reach C2's 600 calls only after 34 rounds
     * (18 passes a round), without which a 64-token prompt of the 124.7M model still ran at a third of its warm speed.
     */
    private static final int MIN_ROUNDS = 40;
    private static final int STEADY_ROUNDS = 8;
    private static final double GAIN = 0.9;
    private static final double SLACK = 1.25;
    /** How often the warm-up looks at the compile queues while it leaves the cores to the compiler threads. */
    private static final long COMPILE_POLL_NANOS = 5_000_000;
    /** Packages whose pending compilations keep the warm-up going. */
    private static final List<String> WARMED = List.of("io.squall.kernels.", "io.squall.functions.engine.");

    /**
     * What a warm-up did.
     *
     * @param rounds rounds run
     * @param elapsed from the start to the end, the miniature's construction included
     * @param firstRoundMillis the first round's time (the slowest: nothing compiled yet)
     * @param lastRoundMillis the last round's time
     * @param settled whether it ended because the JIT settled, not at the time limit
     */
    public record Report(int rounds, Duration elapsed, double firstRoundMillis, double lastRoundMillis,
                         boolean settled) {
    }

    private KernelWarmup() {
    }

    /**
     * Warms {@code kernels} up on a miniature of the model {@code config} and {@code weights} describe, for at most
     * {@code limit}; no rounds for a zero limit or kernels not {@linkplain Kernels#compiledAsTheyRun compiled as they
     * run}. Runs on the calling thread, which must be the one driving {@code kernels} meanwhile.
     */
    public static Report run(ModelConfig config, ModelWeights weights, Kernels kernels, Duration limit) {
        if (limit.isZero() || !kernels.compiledAsTheyRun()) {
            return new Report(0, Duration.ZERO, 0, 0, true);
        }
        long start = System.nanoTime();
        long deadline = start + limit.toNanos();
        Miniature miniature = Miniature.of(config, weights);
        Transformer transformer = new Transformer(miniature.config(), miniature.weights(), kernels,
                POSITIONS);
        JitQueue jit = JitQueue.open();
        int[] prompt = new int[LONG_PROMPT];
        for (int i = 0; i < prompt.length; i++) {
            prompt[i] = (i * 37 + 11) % miniature.config().vocabSize();
        }
        float[] logitsA = new float[miniature.config().vocabSize()];
        float[] logitsB = new float[miniature.config().vocabSize()];
        int rounds = 0;
        int lastGain = 0;
        double first = 0;
        double last = 0;
        double fastest = Double.MAX_VALUE;
        boolean settled = false;
        try {
            while (System.nanoTime() < deadline) {
                long roundStart = System.nanoTime();
                round(transformer, prompt, logitsA, logitsB);
                last = (System.nanoTime() - roundStart) / 1e6;
                if (rounds++ == 0) {
                    first = last;
                }
                if (last < GAIN * fastest) {
                    lastGain = rounds;
                }
                fastest = Math.min(fastest, last);
                // the cores to the compiler threads while they compile what the rounds so far made hot
                boolean compiled = false;
                while (jit.pending(WARMED) > 0 && System.nanoTime() < deadline) {
                    compiled = true;
                    LockSupport.parkNanos(COMPILE_POLL_NANOS);
                }
                boolean steady = rounds >= MIN_ROUNDS && rounds - lastGain >= STEADY_ROUNDS && last <= SLACK * fastest;
                if (!compiled && steady) {
                    settled = true;
                    break;
                }
            }
        } finally {
            kernels.release(miniature.weights().matrices());
        }
        return new Report(rounds, Duration.ofNanos(System.nanoTime() - start), first, last, settled);
    }

    private static void round(Transformer transformer, int[] prompt, float[] logitsA, float[] logitsB) {
        KvCache a = transformer.newCache(POSITIONS);
        KvCache b = transformer.newCache(POSITIONS);
        transformer.forward(List.of(new ForwardPass.Segment(a, prompt, 0, LONG_PROMPT, logitsA)));
        transformer.forward(List.of(new ForwardPass.Segment(b, prompt, 0, SHORT_PROMPT, logitsB)));
        int[] tokens = {prompt[1], prompt[2]};
        for (int step = 0; step < DECODE_STEPS / 2; step++) {
            transformer.forward(List.of(new ForwardPass.Segment(a, tokens, 0, 1, logitsA)));
            transformer.forward(List.of(new ForwardPass.Segment(a, tokens, 0, 1, logitsA),
                    new ForwardPass.Segment(b, tokens, 1, 1, logitsB)));
        }
    }

    /** The miniature model: see {@link KernelWarmup}. */
    record Miniature(ModelConfig config, ModelWeights weights) {

        static Miniature of(ModelConfig config, ModelWeights weights) {
            Map<List<GgmlType>, ModelWeights.Layer> kinds = new LinkedHashMap<>();
            for (ModelWeights.Layer layer : weights.layers()) {
                kinds.putIfAbsent(formats(layer), layer);
            }
            int group = config.heads() / config.kvHeads();
            int kvHeads = 1; // the fewest KV heads whose query width the output projections' blocks divide
            while (kvHeads < config.kvHeads() && !dividesOutputs(weights, kvHeads * group * config.headDim())) {
                kvHeads++;
            }
            ModelConfig mini = new ModelConfig(config.architecture(), Math.min(config.dim(), WIDTH), kinds.size(),
                    kvHeads * group, kvHeads, config.headDim(), Math.min(config.ffnDim(), FFN),
                    Math.min(config.vocabSize(), VOCAB), POSITIONS, config.rmsEps(),
                    config.ropeTheta(), config.ropeDim(), config.ropePositionScale());
            SplittableRandom random = new SplittableRandom(mini.dim());
            List<ModelWeights.Layer> layers = new ArrayList<>();
            for (ModelWeights.Layer like : kinds.values()) {
                layers.add(layer(like, mini, random));
            }
            WeightMatrix embedding = matrix(weights.tokenEmbedding(), mini.vocabSize(), mini.dim(), random);
            WeightMatrix output = weights.output() == weights.tokenEmbedding() ? embedding
                    : matrix(weights.output(), mini.vocabSize(), mini.dim(), random);
            return new Miniature(mini, new ModelWeights(embedding, layers, ones(mini.dim()), output,
                    weights.ropeFrequencyFactors()));
        }

        private static ModelWeights.Layer layer(ModelWeights.Layer like, ModelConfig mini, SplittableRandom random) {
            ModelWeights.Attention a = like.attention();
            ModelWeights.FeedForward f = like.feedForward();
            ModelWeights.QkvBias bias = a.bias() == null ? null : new ModelWeights.QkvBias(
                    gaussian(mini.qDim(), random), gaussian(mini.kvDim(), random), gaussian(mini.kvDim(), random));
            ModelWeights.QkNorm qkNorm = a.qkNorm() == null ? null
                    : new ModelWeights.QkNorm(ones(mini.headDim()), ones(mini.headDim()));
            return new ModelWeights.Layer(
                    new ModelWeights.Attention(ones(mini.dim()), matrix(a.wq(), mini.qDim(), mini.dim(), random),
                            matrix(a.wk(), mini.kvDim(), mini.dim(), random),
                            matrix(a.wv(), mini.kvDim(), mini.dim(), random),
                            matrix(a.wo(), mini.dim(), mini.qDim(), random), bias, qkNorm),
                    new ModelWeights.FeedForward(ones(mini.dim()), matrix(f.gate(), mini.ffnDim(), mini.dim(), random),
                            matrix(f.up(), mini.ffnDim(), mini.dim(), random),
                            matrix(f.down(), mini.dim(), mini.ffnDim(), random)));
        }

        /** A layer's matrix formats: wq, wk, wv, wo, gate, up, down. */
        static List<GgmlType> formats(ModelWeights.Layer layer) {
            ModelWeights.Attention a = layer.attention();
            ModelWeights.FeedForward f = layer.feedForward();
            return List.of(a.wq().type(), a.wk().type(), a.wv().type(), a.wo().type(), f.gate().type(),
                    f.up().type(), f.down().type());
        }

        private static boolean dividesOutputs(ModelWeights weights, int qDim) {
            for (ModelWeights.Layer layer : weights.layers()) {
                if (qDim % layer.attention().wo().type().blockSize() != 0) {
                    return false;
                }
            }
            return true;
        }

        /** A {@code rows × cols} matrix in {@code like}'s format, N(0, 0.02) as {@link RandomModel} writes. */
        private static WeightMatrix matrix(WeightMatrix like, int rows, int cols, SplittableRandom random) {
            return GgmlCodec.encode(like.name(), like.type(), rows, cols, gaussian(rows * cols, random));
        }

        private static float[] gaussian(int n, SplittableRandom random) {
            float[] values = new float[n];
            for (int i = 0; i < n; i++) {
                values[i] = (float) (random.nextGaussian() * RandomModel.WEIGHT_STD);
            }
            return values;
        }

        private static float[] ones(int n) {
            float[] values = new float[n];
            Arrays.fill(values, 1f);
            return values;
        }
    }

    /**
     * HotSpot's compile queues as {@code jcmd Compiler.queue} prints them (the compilations running, then those
     * queued), through the diagnostic-command MBean; a JVM without it reads as always empty, and the warm-up then
     * ends on its timing alone.
     */
    private record JitQueue(ObjectName command) {

        static JitQueue open() {
            try {
                ObjectName name = new ObjectName("com.sun.management:type=DiagnosticCommand");
                return new JitQueue(ManagementFactory.getPlatformMBeanServer().isRegistered(name) ? name : null);
            } catch (JMException e) {
                return new JitQueue(null);
            }
        }

        /** Methods of the {@code packages} being compiled or queued for compilation now. */
        int pending(List<String> packages) {
            if (command == null) {
                return 0;
            }
            String queue;
            try {
                queue = (String) ManagementFactory.getPlatformMBeanServer().invoke(command, "compilerQueue",
                        new Object[] {null}, new String[] {String[].class.getName()});
            } catch (JMException e) {
                return 0;
            }
            int pending = 0;
            for (String line : queue.split("\n")) {
                for (String prefix : packages) {
                    if (line.contains(prefix)) {
                        pending++;
                        break;
                    }
                }
            }
            return pending;
        }
    }
}
