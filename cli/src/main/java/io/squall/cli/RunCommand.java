package io.squall.cli;

import io.squall.cli.model.ModelSpec;
import io.squall.functions.engine.generate.Generator;
import io.squall.functions.engine.model.KernelWarmup;
import io.squall.functions.engine.model.Model;
import io.squall.functions.engine.model.Transformer;
import io.squall.functions.engine.sampling.Sampler;
import io.squall.functions.engine.sampling.SamplingParams;
import io.squall.functions.engine.tokenizer.DecodeOptions;
import io.squall.functions.engine.tokenizer.EncodeOptions;
import io.squall.functions.engine.tokenizer.IncrementalDecoder;
import io.squall.functions.engine.tokenizer.Tokenizer;
import io.squall.functions.engine.tokenizer.Tokenizers;
import io.squall.kernels.Kernels;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code squall run}: one generation in this process. */
@Command(name = "run", description = "Generate from a prompt in this process; stream the text, or print JSON with --json.")
final class RunCommand implements Callable<Integer> {

    @picocli.CommandLine.Mixin
    KernelOption kernelOption;

    @Option(names = "--kernel-warmup-seconds", defaultValue = "0", description = "at most this long running a "
            + "miniature of the model first, until the JIT has compiled the kernels: the prompt then runs at near-warm "
            + "speed, but the first token comes no sooner (the JIT's time moves ahead of the prompt) (default: "
            + "${DEFAULT-VALUE}, none)")
    int kernelWarmupSeconds;

    /** Prompt tokens per prefill forward pass (also {@code squall bench engine}'s, which measures this prefill). */
    static final int PREFILL_CHUNK = 512;

    @Option(names = "--model", required = true, converter = ModelArgument.class, description = ModelArgument.DESCRIPTION)
    ModelSpec model;

    @ArgGroup(multiplicity = "1")
    Input input;

    static final class Input {
        @Option(names = "--prompt", description = "text, tokenized as the model says (BOS when add_bos_token)")
        String prompt;

        @Option(names = "--tokens", split = ",", description = "token ids, used exactly as given")
        int[] tokens;
    }

    @Option(names = "--max-tokens", defaultValue = "128", description = "most tokens to generate (default: ${DEFAULT-VALUE})")
    int maxTokens;

    @Option(names = "--temperature", defaultValue = "0.8", description = "0 for greedy (default: ${DEFAULT-VALUE})")
    double temperature;

    @Option(names = "--top-k", defaultValue = "40", description = "0 disables (default: ${DEFAULT-VALUE})")
    int topK;

    @Option(names = "--top-p", defaultValue = "0.95", description = "1 disables (default: ${DEFAULT-VALUE})")
    double topP;

    @Option(names = "--min-p", defaultValue = "0.05", description = "0 disables (default: ${DEFAULT-VALUE})")
    double minP;

    @Option(names = "--repeat-penalty", defaultValue = "1.0", description = "1 disables (default: ${DEFAULT-VALUE})")
    double repeatPenalty;

    @Option(names = "--seed", description = "sampling seed (default: random)")
    Long seed;

    @Option(names = "--json", description = "print one JSON object instead of streaming text")
    boolean json;

    @Option(names = "--warmup", defaultValue = "0",
            description = "throwaway generations of the same shape first, so the speeds reported exclude JIT warm-up")
    int warmup;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        if (maxTokens < 0) {
            throw new IllegalArgumentException("--max-tokens must not be negative");
        }
        SamplingParams params = SamplingParams.builder()
                .temperature(temperature).topK(topK).topP(topP).minP(minP)
                .repetitionPenalty(repeatPenalty).seed(seed)
                .build();
        PrintWriter out = spec.commandLine().getOut();
        Duration warmupLimit = KernelWarmupOption.limit(kernelWarmupSeconds);
        try (Model loaded = Model.load(ModelArgument.file(model)); Kernels kernels = Kernels.best()) {
            Tokenizer tokenizer = Tokenizers.fromGguf(loaded.metadata());
            int[] prompt = input.tokens != null ? input.tokens : tokenizer.encode(input.prompt, EncodeOptions.PROMPT);
            if (prompt.length == 0) {
                throw new IllegalArgumentException("the prompt has no tokens");
            }
            Transformer transformer = new Transformer(loaded.config(), loaded.weights(), kernels,
                    (int) Math.min(Integer.MAX_VALUE, (long) prompt.length + maxTokens + 1));
            long warmupMillis = KernelWarmup.run(loaded.config(), loaded.weights(), kernels, warmupLimit)
                    .elapsed().toMillis();
            Generator generator = new Generator(transformer, PREFILL_CHUNK);
            for (int i = 0; i < warmup; i++) {
                generator.generate(prompt, new Sampler(params, loaded.config().vocabSize()), maxTokens, token -> false,
                        token -> { });
            }
            DecodeOptions decodeOptions = DecodeOptions.CONTINUATION;
            IncrementalDecoder streaming = tokenizer.newIncrementalDecoder(decodeOptions);
            long[] firstTokenAfterLaunch = {-1};
            Generator.Result result = generator.generate(prompt, new Sampler(params, loaded.config().vocabSize()),
                    maxTokens, tokenizer::isEndOfGeneration, token -> {
                        if (firstTokenAfterLaunch[0] < 0) {
                            firstTokenAfterLaunch[0] = ManagementFactory.getRuntimeMXBean().getUptime();
                        }
                        if (!json) {
                            out.print(streaming.accept(token));
                            out.flush();
                        }
                    });
            double prefillRate = prompt.length * 1e9 / Math.max(1, result.prefillNanos());
            double decodeRate = result.decodeSteps() == 0 ? 0 : result.decodeSteps() * 1e9 / result.decodeNanos();
            if (json) {
                Map<String, Object> report = new LinkedHashMap<>();
                report.put("token_ids", result.tokens());
                IncrementalDecoder whole = tokenizer.newIncrementalDecoder(decodeOptions);
                report.put("text", whole.acceptAll(result.tokens()) + whole.finish());
                report.put("prompt_tokens", prompt.length);
                report.put("completion_tokens", result.tokens().length);
                report.put("prefill_tokens_per_second", round(prefillRate));
                report.put("decode_tokens_per_second", round(decodeRate));
                report.put("kernel_warmup_ms", warmupMillis);
                report.put("first_token_after_launch_ms", firstTokenAfterLaunch[0] < 0 ? null : firstTokenAfterLaunch[0]);
                report.put("finish_reason", result.finishReason().wireName());
                Json.print(out, report);
            } else {
                out.println(streaming.finish());
                spec.commandLine().getErr().printf("%d prompt tokens at %.1f tokens/s, %d generated at %.1f tokens/s (%s, "
                        + "kernels warmed up in %d ms%s)%n", prompt.length, prefillRate, result.tokens().length, decodeRate,
                        kernels.name(), warmupMillis, firstTokenAfterLaunch[0] < 0 ? ""
                                : "; first token " + firstTokenAfterLaunch[0] + " ms after launch");
            }
        }
        return 0;
    }

    private static double round(double value) {
        return Math.round(value * 10) / 10.0;
    }
}
