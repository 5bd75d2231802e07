package io.squall.cli;

import io.squall.cli.model.ModelSpec;
import io.squall.functions.engine.model.Model;
import io.squall.functions.engine.model.ForwardPass;
import io.squall.functions.engine.model.Transformer;
import io.squall.kernels.Kernels;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code squall logits}: the logits at the last position of the given token ids. */
@Command(name = "logits", description = "Print the logits at the last position of a token sequence, as JSON.")
final class LogitsCommand implements Callable<Integer> {

    @picocli.CommandLine.Mixin
    KernelOption kernelOption;

    private static final int DEFAULT_SHOWN = 32;

    @Option(names = "--model", required = true, converter = ModelArgument.class, description = ModelArgument.DESCRIPTION)
    ModelSpec model;

    @Option(names = "--tokens", required = true, split = ",", description = "token ids, used exactly as given (no BOS added)")
    int[] tokens;

    @Option(names = "--all", description = "print every logit, not just the first 32")
    boolean all;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        if (tokens.length == 0) {
            throw new IllegalArgumentException("--tokens needs at least one id");
        }
        try (Model loaded = Model.load(ModelArgument.file(model)); Kernels kernels = Kernels.best()) {
            Transformer transformer = new Transformer(loaded.config(), loaded.weights(), kernels, tokens.length);
            float[] logits = new float[loaded.config().vocabSize()];
            transformer.forward(List.of(new ForwardPass.Segment(transformer.newCache(), tokens, 0, tokens.length, logits)));
            int argmax = 0;
            for (int i = 1; i < logits.length; i++) {
                if (logits[i] > logits[argmax]) {
                    argmax = i;
                }
            }
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("argmax", argmax);
            result.put("logits", all ? logits : Arrays.copyOf(logits, Math.min(DEFAULT_SHOWN, logits.length)));
            Json.print(spec.commandLine().getOut(), result);
        }
        return 0;
    }
}
