package io.squall.cli;

import io.squall.cli.model.ModelSpec;
import io.squall.functions.engine.generate.Generator;
import io.squall.functions.engine.model.ForwardPass;
import io.squall.functions.engine.model.KvCache;
import io.squall.functions.engine.model.Model;
import io.squall.functions.engine.model.Transformer;
import io.squall.kernels.Kernels;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.function.Consumer;

/**
 * {@code squall bench engine}: the engine's prefill and decode speed in this process, measured as llama-bench
 * measures llama.cpp's, so that the two print comparable figures for the same GGUF file. A {@code ppN} test runs N
 * random tokens through an empty cache as {@code squall run} prefills ({@link RunCommand#PREFILL_CHUNK} tokens a
 * pass, as llama-bench's default micro-batch, the last position's logits computed); a {@code tgN} test decodes N
 * random tokens one at a time from an empty cache, each with its logits. Each test runs its warm-up repetitions,
 * then {@code -r} timed ones, and reports their mean tokens/s and sample standard deviation; with {@code --json}
 * one object a test, with llama-bench's jsonl field names.
 */
@Command(name = "engine", description = "Prefill (ppN) and decode (tgN) tokens/s of one model in this process, as "
        + "llama-bench measures llama.cpp: mean and standard deviation over repetitions, from an empty cache.")
final class EngineBenchCommand implements Callable<Integer> {

    @picocli.CommandLine.Mixin
    KernelOption kernelOption;

    @Option(names = "--model", required = true, converter = ModelArgument.class, description = ModelArgument.DESCRIPTION)
    ModelSpec model;

    @Option(names = {"-p", "--n-prompt"}, split = ",", defaultValue = "512",
            description = "prompt lengths, one ppN test each; 0 skips (default: ${DEFAULT-VALUE})")
    int[] prompts;

    @Option(names = {"-n", "--n-gen"}, split = ",", defaultValue = "128",
            description = "generated lengths, one tgN test each; 0 skips (default: ${DEFAULT-VALUE})")
    int[] generations;

    @Option(names = {"-r", "--repetitions"}, defaultValue = "5",
            description = "timed runs per test (default: ${DEFAULT-VALUE})")
    int repetitions;

    @Option(names = "--warmup", defaultValue = "5",
            description = "untimed runs per test first; the JIT compiles the kernels during the first few "
                    + "(default: ${DEFAULT-VALUE}; llama-bench runs one)")
    int warmup;

    @Option(names = "--seed", defaultValue = "1",
            description = "seed of the random token ids (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--json", description = "print one JSON object per test instead of a table")
    boolean json;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    /** One test's timed runs. */
    private record Result(String test, int prompt, int generated, List<Double> samples) {

        double mean() {
            return samples.stream().mapToDouble(Double::doubleValue).average().orElse(0);
        }

        /** The sample standard deviation (n − 1), as llama-bench reports it; 0 for one sample. */
        double deviation() {
            if (samples.size() < 2) {
                return 0;
            }
            double mean = mean();
            double squares = samples.stream().mapToDouble(s -> (s - mean) * (s - mean)).sum();
            return Math.sqrt(squares / (samples.size() - 1));
        }
    }

    @Override
    public Integer call() {
        if (repetitions < 1) {
            throw new IllegalArgumentException("-r must be at least 1, got " + repetitions);
        }
        if (warmup < 0) {
            throw new IllegalArgumentException("--warmup must not be negative, got " + warmup);
        }
        int longest = 0;
        for (int[] lengths : new int[][] {prompts, generations}) {
            for (int length : lengths) {
                if (length < 0) {
                    throw new IllegalArgumentException("-p and -n take lengths of 0 or more, got " + length);
                }
                longest = Math.max(longest, length);
            }
        }
        if (longest == 0) {
            throw new IllegalArgumentException("nothing to measure: every -p and -n length is 0");
        }
        PrintWriter out = spec.commandLine().getOut();
        Path file = ModelArgument.file(model);
        try (Model loaded = Model.load(file); Kernels kernels = Kernels.best()) {
            Transformer transformer = new Transformer(loaded.config(), loaded.weights(), kernels, longest);
            int vocab = loaded.config().vocabSize();
            float[] logits = new float[vocab];
            Generator generator = new Generator(transformer, RunCommand.PREFILL_CHUNK);
            SplittableRandom random = new SplittableRandom(seed);
            List<Result> results = new ArrayList<>();
            // a length of 0 skips its test, as in llama-bench ("-p 0" measures decode alone)
            for (int prompt : prompts) {
                if (prompt == 0) {
                    continue;
                }
                int[] tokens = random.ints(prompt, 0, vocab).toArray();
                results.add(run(transformer, "pp" + prompt, prompt, 0, cache -> generator.prefill(cache, tokens)));
            }
            for (int generated : generations) {
                if (generated == 0) {
                    continue;
                }
                int[] tokens = random.ints(generated, 0, vocab).toArray();
                results.add(run(transformer, "tg" + generated, 0, generated, cache -> decode(transformer, cache, tokens, logits)));
            }
            if (json) {
                for (Result result : results) {
                    Map<String, Object> line = new LinkedHashMap<>();
                    line.put("model_filename", file.toString());
                    line.put("backend", kernels.name());
                    line.put("test", result.test());
                    line.put("n_prompt", result.prompt());
                    line.put("n_gen", result.generated());
                    line.put("avg_ts", round(result.mean()));
                    line.put("stddev_ts", round(result.deviation()));
                    line.put("samples_ts", result.samples().stream().map(EngineBenchCommand::round).toList());
                    Json.print(out, line);
                }
            } else {
                out.printf("| model | backend | test | t/s |%n|---|---|---|---:|%n");
                for (Result result : results) {
                    out.printf(Locale.ROOT, "| %s | %s | %s | %.2f ± %.2f |%n", file.getFileName(),
                            kernels.name(), result.test(), result.mean(), result.deviation());
                }
            }
        }
        return 0;
    }

    /**
     * Runs {@code pass} {@link #warmup} times untimed, then {@link #repetitions} times timed, each on a new empty cache
     * allocated before its clock starts (llama-bench clears a cache allocated with the context): tokens/s of each.
     */
    private Result run(Transformer transformer, String test, int prompt, int generated, Consumer<KvCache> pass) {
        int tokens = prompt + generated;
        for (int i = 0; i < warmup; i++) {
            pass.accept(transformer.newCache(tokens));
        }
        List<Double> samples = new ArrayList<>();
        for (int i = 0; i < repetitions; i++) {
            KvCache cache = transformer.newCache(tokens);
            long start = System.nanoTime();
            pass.accept(cache);
            samples.add(tokens * 1e9 / Math.max(1, System.nanoTime() - start));
        }
        return new Result(test, prompt, generated, samples);
    }

    /** {@code tokens} one at a time after what {@code cache} holds, each with its logits. */
    private static void decode(Transformer transformer, KvCache cache, int[] tokens, float[] logits) {
        for (int i = 0; i < tokens.length; i++) {
            transformer.forward(List.of(new ForwardPass.Segment(cache, tokens, i, 1, logits)));
        }
    }

    private static double round(double value) {
        return Math.round(value * 100) / 100.0;
    }
}
