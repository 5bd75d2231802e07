package io.squall.gateway;

import io.squall.functions.api.FinishReason;
import io.squall.functions.api.GenerateRequest;
import io.squall.functions.api.GenerateService;
import io.squall.functions.api.TokenChunk;
import reactor.core.publisher.Flux;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A {@link GenerateService} that "generates" a fixed text, one byte token per chunk, for models with the
 * built-in byte-level vocabulary (token id = byte value): deterministic output for tool-call and stop tests.
 */
final class ScriptedService implements GenerateService {

    private final byte[] output;

    ScriptedService(String output) {
        this.output = output.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public Flux<TokenChunk> generate(GenerateRequest request) {
        int count = Math.min(output.length, request.maxTokens());
        Flux<TokenChunk> tokens = Flux.range(0, count)
                .map(i -> new TokenChunk(new int[] {output[i] & 0xFF}, List.of(), null, null));
        FinishReason reason = count < output.length ? FinishReason.LENGTH : FinishReason.STOP;
        return tokens.concatWith(Flux.just(new TokenChunk(new int[0], List.of(), reason,
                new TokenChunk.Usage(request.tokens().length, count, 0))));
    }
}
