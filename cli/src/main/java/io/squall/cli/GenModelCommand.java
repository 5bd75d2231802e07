package io.squall.cli;

import io.squall.functions.engine.model.Architecture;
import io.squall.functions.engine.model.RandomModel;
import io.squall.kernels.GgmlType;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code squall gen-model}: writes a random-weight GGUF model. */
@Command(name = "gen-model", description = "Write a GGUF model with random weights (for tests and benchmarks).")
final class GenModelCommand implements Callable<Integer> {

    @Option(names = "--arch", required = true, description = "llama, mistral, qwen2 or qwen3")
    String arch;

    @Option(names = "--dim", required = true, description = "model width")
    int dim;

    @Option(names = "--layers", required = true, description = "transformer blocks")
    int layers;

    @Option(names = "--heads", required = true, description = "attention heads")
    int heads;

    @Option(names = "--kv-heads", description = "key/value heads (default: --heads)")
    Integer kvHeads;

    @Option(names = "--ffn", required = true, description = "feed-forward width")
    int ffn;

    @Option(names = "--context", defaultValue = "4096", description = "context length to record (default: ${DEFAULT-VALUE})")
    int context;

    @Option(names = "--vocab-from", description = "copy the tokenizer of this GGUF (default: a built-in byte-level vocabulary)")
    Path vocabFrom;

    @Option(names = "--type", defaultValue = "f32", description = "storage of the matrices: f32, f16, bf16, q8_0, q4_0, q4_1, q5_0, q5_1, iq4_nl, q2_k, q3_k,"
            + " q4_k, q5_k, q6_k or iq4_xs (default: ${DEFAULT-VALUE})")
    String type;

    @Option(names = "--seed", defaultValue = "1234", description = "weights seed (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--out", required = true, description = "output file")
    Path out;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        GgmlType ggmlType = parseType(type);
        if (vocabFrom != null && !Files.isRegularFile(vocabFrom)) {
            throw new IllegalArgumentException("--vocab-from " + vocabFrom + " is not a file");
        }
        RandomModel.Shape shape = new RandomModel.Shape(dim, layers, heads, kvHeads == null ? heads : kvHeads, ffn, context);
        RandomModel.write(new RandomModel.Spec(Architecture.fromGguf(arch), shape, ggmlType, vocabFrom, seed), out);
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("path", out.toAbsolutePath().toString());
        result.put("bytes", out.toFile().length());
        Json.print(spec.commandLine().getOut(), result);
        return 0;
    }

    /** The format named {@code name} (any case), one of those Squall computes with. */
    static GgmlType parseType(String name) {
        for (GgmlType candidate : GgmlType.values()) {
            if (candidate.isMatmulSupported() && candidate.name().equalsIgnoreCase(name)) {
                return candidate;
            }
        }
        throw new IllegalArgumentException("--type " + name + " is not one of "
                + GgmlType.supportedNames().toLowerCase(Locale.ROOT));
    }
}
