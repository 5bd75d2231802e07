package io.squall.gateway.preprocess;

import io.squall.functions.api.FinishReason;
import io.squall.functions.api.TokenChunk;
import io.squall.functions.engine.text.StopStringMatcher;
import io.squall.functions.engine.tokenizer.DecodeOptions;
import io.squall.functions.engine.tokenizer.IncrementalDecoder;
import io.squall.functions.engine.tokenizer.Tokenizer;
import io.squall.gateway.openai.ApiError;
import io.squall.gateway.openai.ApiException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.SynchronousSink;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Detokenizes one sequence's token stream incrementally and applies stop strings: the output never holds
 * half a UTF-8 character or a partial stop string. When a stop string matches, the last delta carries
 * finish reason {@code stop} and the upstream generation is cancelled, freeing its worker sequence.
 *
 * <p>Demand: one upstream chunk yields at most one delta; deltas with neither text nor a finish are not
 * emitted (their tokens and log-probabilities ride on the next delta), so demand passes through
 * 1:1 with small replenishment.
 */
public final class TextStream {

    private TextStream() {
    }

    /**
     * @param upstream     the worker's chunks for one sequence
     * @param tokenizer    the model's tokenizer
     * @param stops        stop strings, possibly empty
     * @param promptTokens the prompt's length, for usage when a stop string ends the sequence early
     * @param onStopString run when a stop string ends the sequence, just before the upstream is cancelled
     */
    public static Flux<TextDelta> of(Flux<TokenChunk> upstream, Tokenizer tokenizer, List<String> stops, int promptTokens,
                                     Runnable onStopString) {
        Objects.requireNonNull(upstream, "upstream");
        Objects.requireNonNull(tokenizer, "tokenizer");
        List<String> stopList = List.copyOf(stops);
        return Flux.defer(() -> {
            State state = new State(tokenizer, stopList, promptTokens, onStopString);
            return upstream.<TextDelta>handle(state::accept).takeUntil(TextDelta::isLast);
        });
    }

    /** Per-subscription state: one decoder and one matcher per sequence. */
    private static final class State {
        private final IncrementalDecoder decoder;
        private final StopStringMatcher matcher;
        private final int promptTokens;
        private final Runnable onStopString;
        private final List<TokenChunk.TokenLogprobs> pendingLogprobs = new ArrayList<>();
        private int pendingTokens;
        private int generated;

        State(Tokenizer tokenizer, List<String> stops, int promptTokens, Runnable onStopString) {
            this.onStopString = onStopString;
            this.decoder = tokenizer.newIncrementalDecoder(DecodeOptions.CONTINUATION);
            this.matcher = stops.isEmpty() ? null : new StopStringMatcher(stops);
            this.promptTokens = promptTokens;
        }

        void accept(TokenChunk chunk, SynchronousSink<TextDelta> sink) {
            StringBuilder text = new StringBuilder();
            try {
                for (int id : chunk.tokenIds()) {
                    text.append(decoder.accept(id));
                }
            } catch (IllegalArgumentException e) {
                sink.error(new ApiException(ApiError.INTERNAL, "the worker produced a token outside the vocabulary", null, null));
                return;
            }
            generated += chunk.tokenIds().length;
            pendingTokens += chunk.tokenIds().length;
            pendingLogprobs.addAll(chunk.logprobs());
            if (chunk.isLast()) {
                text.append(decoder.finish());
            }
            String safe = text.toString();
            if (matcher != null) {
                StopStringMatcher.Step step = matcher.accept(safe);
                if (step instanceof StopStringMatcher.Step.Stopped) {
                    onStopString.run();
                    sink.next(delta(step.text(), FinishReason.STOP,
                            new TokenChunk.Usage(promptTokens, generated, 0)));
                    return;
                }
                safe = chunk.isLast() ? step.text() + matcher.finish() : step.text();
            }
            if (chunk.isLast()) {
                FinishReason reason = chunk.finishReason();
                if (reason == FinishReason.CANCELLED) {
                    sink.error(new ApiException(ApiError.UNAVAILABLE, "the worker cancelled the generation", null, null));
                    return;
                }
                TokenChunk.Usage usage = chunk.usage() != null ? chunk.usage() : new TokenChunk.Usage(promptTokens, generated, 0);
                sink.next(delta(safe, reason, usage));
            } else if (!safe.isEmpty()) {
                sink.next(delta(safe, null, null));
            }
        }

        private TextDelta delta(String text, FinishReason reason, TokenChunk.Usage usage) {
            TextDelta delta = new TextDelta(text, pendingTokens, pendingLogprobs, reason, usage);
            pendingTokens = 0;
            pendingLogprobs.clear();
            return delta;
        }
    }
}
