package io.squall.cli;

import io.squall.cli.model.ModelSpec;
import io.squall.functions.engine.gguf.GgufFile;
import io.squall.functions.engine.tokenizer.EncodeOptions;
import io.squall.functions.engine.tokenizer.Tokenizer;
import io.squall.functions.engine.tokenizer.Tokenizers;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.Map;
import java.util.concurrent.Callable;

/** {@code squall tokenize}: the token ids of a text under a model's tokenizer. */
@Command(name = "tokenize", description = "Print the token ids of a text, as JSON.")
final class TokenizeCommand implements Callable<Integer> {

    @Option(names = "--model", required = true, converter = ModelArgument.class,
            description = "the model holding the tokenizer; " + ModelArgument.DESCRIPTION)
    ModelSpec model;

    @Option(names = "--text", required = true, description = "text to tokenize")
    String text;

    @Option(names = "--bos", description = "add the model's BOS/EOS tokens as its metadata says")
    boolean bos;

    @Option(names = "--special", description = "recognise control tokens written in the text, such as <|im_start|>")
    boolean special;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        try (GgufFile file = GgufFile.open(ModelArgument.file(model))) {
            Tokenizer tokenizer = Tokenizers.fromGguf(file.metadata());
            int[] ids = tokenizer.encode(text, new EncodeOptions(bos, special));
            Json.print(spec.commandLine().getOut(), Map.of("ids", ids));
        }
        return 0;
    }
}
