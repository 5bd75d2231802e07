package io.squall.cli.bench;

import io.squall.functions.api.GenerateRequest;
import io.squall.functions.api.SamplingOptions;
import io.squall.functions.api.TokenChunk;
import io.squall.functions.engine.chat.ChatMessage;
import io.squall.functions.engine.tokenizer.DecodeOptions;
import io.squall.functions.engine.tokenizer.IncrementalDecoder;
import io.squall.gateway.ModelEndpoint;
import io.squall.gateway.preprocess.Preprocessor;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The in-process baseline: renders and tokenizes like the gateway, then calls the worker's
 * {@link io.squall.functions.api.GenerateService} directly and times the tokens as they arrive, with no HTTP,
 * JSON or gateway pipeline in between.
 */
public final class DirectTarget implements Target {

    private static final AtomicLong IDS = new AtomicLong();

    private final ModelEndpoint endpoint;
    private final Preprocessor preprocessor;

    public DirectTarget(ModelEndpoint endpoint) {
        this.endpoint = endpoint;
        this.preprocessor = new Preprocessor(endpoint);
    }

    private int[] prompt(BenchRequest request) {
        if (request.isTokens()) {
            return preprocessor.tokens(request.prompt());
        }
        List<ChatMessage> messages = request.messages().stream()
                .map(m -> ChatMessage.of(m.get("role"), m.get("content"))).toList();
        return preprocessor.chat(messages, null);
    }

    @Override
    public int promptTokens(BenchRequest probe) {
        return prompt(probe).length;
    }

    @Override
    public int[] tokenize(List<Map<String, String>> messages) {
        return prompt(new BenchRequest(messages, 1));
    }

    @Override
    public int[] tokenizeText(String text) {
        return preprocessor.text(text);
    }

    @Override
    public Outcome send(BenchRequest request) {
        long start = System.nanoTime();
        try {
            int[] prompt = prompt(request);
            GenerateRequest generate = new GenerateRequest("bench-" + IDS.incrementAndGet(), prompt,
                    SamplingOptions.greedy(), request.maxTokens(), true, -1);
            IncrementalDecoder decoder = endpoint.tokenizer().newIncrementalDecoder(DecodeOptions.CONTINUATION);
            StringBuilder text = new StringBuilder();
            LongList itl = new LongList();
            long[] timing = {-1, 0};
            int[] tokens = {0};
            TokenChunk last = endpoint.service().generate(generate)
                    .doOnNext(chunk -> onChunk(chunk, decoder, text, itl, timing, tokens, start))
                    .blockLast(Duration.ofMinutes(30));
            TokenChunk.Usage usage = last == null ? null : last.usage();
            return new Outcome(timing[0], itl.toArray(), System.nanoTime() - start, tokens[0], text.toString(), null,
                    usage == null ? new Outcome.Served(prompt.length, -1, null, -1, 0)
                            : new Outcome.Served(prompt.length, usage.cachedTokens(), null, -1, 0, usage.sources()));
        } catch (RuntimeException e) {
            return Outcome.failed(System.nanoTime() - start, e.toString());
        }
    }

    private static void onChunk(TokenChunk chunk, IncrementalDecoder decoder, StringBuilder text, LongList itl,
                                long[] timing, int[] tokens, long start) {
        if (chunk.tokenIds().length == 0) {
            return;
        }
        long now = System.nanoTime();
        if (timing[0] < 0) {
            timing[0] = now - start;
        } else {
            itl.add(now - timing[1]);
        }
        timing[1] = now;
        tokens[0] += chunk.tokenIds().length;
        for (int id : chunk.tokenIds()) {
            text.append(decoder.accept(id));
        }
    }
}
