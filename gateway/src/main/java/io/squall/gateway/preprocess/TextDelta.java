package io.squall.gateway.preprocess;

import io.squall.functions.api.FinishReason;
import io.squall.functions.api.TokenChunk;

import java.util.ArrayList;
import java.util.List;

/**
 * Text of one sequence that is safe to show: whole UTF-8 characters, never part of a stop string.
 *
 * @param text         the new text, possibly empty
 * @param tokens       tokens this delta accounts for
 * @param logprobs     log-probabilities of those tokens when requested, else empty
 * @param finishReason set on the sequence's last delta only
 * @param usage        set on the last delta only; cached tokens are 0 when a stop string ended the sequence
 */
public record TextDelta(String text, int tokens, List<TokenChunk.TokenLogprobs> logprobs, FinishReason finishReason,
                        TokenChunk.Usage usage) {

    public TextDelta {
        logprobs = List.copyOf(logprobs);
    }

    /** Whether this delta ends its sequence. */
    public boolean isLast() {
        return finishReason != null;
    }

    /** This delta followed by {@code next}: texts, counts and log-probabilities joined, the later end kept. */
    public TextDelta append(TextDelta next) {
        List<TokenChunk.TokenLogprobs> joined = new ArrayList<>(logprobs);
        joined.addAll(next.logprobs);
        return new TextDelta(text + next.text, tokens + next.tokens, joined,
                next.finishReason != null ? next.finishReason : finishReason, next.usage != null ? next.usage : usage);
    }
}
