package io.squall.gateway;

import io.squall.functions.api.GenerateService;
import io.squall.functions.engine.chat.ChatTemplate;
import io.squall.functions.engine.chat.SpecialTokens;
import io.squall.functions.engine.gguf.GgufMetadata;
import io.squall.functions.engine.tokenizer.Tokenizer;
import io.squall.functions.engine.tokenizer.Tokenizers;

import java.util.Objects;

/**
 * One model as the gateway serves it: where generation runs and what preprocessing needs.
 *
 * @param service        generates tokens for this model (in process, or an RSocket client of its workers); not null
 * @param tokenizer      the model's tokenizer; not null
 * @param template       the model's chat template; not null
 * @param context        how long a sequence may be: prompt plus generated tokens never exceed it; not null
 * @param randomWeights  whether the weights are random (a demo model); {@code /v1/models} says so
 */
public record ModelEndpoint(GenerateService service, Tokenizer tokenizer, ChatTemplate template, ContextLength context,
                            boolean randomWeights) {

    /** The prefix of {@code general.description} that Squall's random-weight models carry. */
    private static final String RANDOM_WEIGHTS_MARK = "RANDOM WEIGHTS";

    public ModelEndpoint {
        Objects.requireNonNull(service, "service");
        Objects.requireNonNull(tokenizer, "tokenizer");
        Objects.requireNonNull(template, "template");
        Objects.requireNonNull(context, "context");
    }

    /**
     * The endpoint of a GGUF model served by {@code service} within {@code context}: tokenizer and chat template
     * (ChatML when the file has none) from the metadata, and random weights recognised by the description that
     * {@code squall gen-model} writes. The context comes from the workers, never from the file: a worker may run
     * a shorter one than the model was trained for.
     *
     * @throws IllegalArgumentException if the tokenizer metadata is missing or the template does not compile
     */
    public static ModelEndpoint fromGguf(GgufMetadata metadata, GenerateService service, ContextLength context) {
        Tokenizer tokenizer = Tokenizers.fromGguf(metadata);
        var ids = tokenizer.specialTokens();
        String bos = ids.bos() >= 0 ? tokenizer.tokenText(ids.bos()) : "";
        String eos = ids.eos() >= 0 ? tokenizer.tokenText(ids.eos()) : "";
        ChatTemplate template = ChatTemplate.forModel(metadata.findString("tokenizer.chat_template").orElse(null),
                new SpecialTokens(bos, eos));
        boolean random = metadata.findString("general.description").map(d -> d.startsWith(RANDOM_WEIGHTS_MARK)).orElse(false);
        return new ModelEndpoint(service, tokenizer, template, context, random);
    }
}
