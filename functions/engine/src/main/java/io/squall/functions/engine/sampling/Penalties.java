package io.squall.functions.engine.sampling;

import java.util.Arrays;

/**
 * Applies the repetition, presence and frequency penalties to the logits of the tokens in the penalty window,
 * in place. Per token {@code t} seen {@code c > 0} times in the window (llama.cpp {@code penalties} sampler):
 * <pre>
 *   logit[t] = logit[t] &gt; 0 ? logit[t] / repetitionPenalty : logit[t] * repetitionPenalty
 *   logit[t] -= c * frequencyPenalty + presencePenalty
 * </pre>
 * Cost O(N log N) for a window of N tokens, independent of the vocabulary size: the window is copied into a
 * reused buffer and sorted so that equal ids form runs. Not thread-safe (the buffer).
 */
final class Penalties {
    private final float repetition;
    private final float presence;
    private final float frequency;
    private final int lastN;
    private int[] window = new int[0];

    Penalties(SamplingParams params) {
        this.repetition = (float) params.repetitionPenalty();
        this.presence = (float) params.presencePenalty();
        this.frequency = (float) params.frequencyPenalty();
        this.lastN = params.penaltyLastN();
    }

    void apply(float[] logits, TokenHistory history) {
        int size = history.size();
        int length = lastN < 0 ? size : Math.min(lastN, size);
        if (length == 0) {
            return;
        }
        if (window.length < length) {
            window = new int[Math.max(length, window.length * 2)];
        }
        history.copyRange(size - length, length, window);
        Arrays.sort(window, 0, length);
        int i = 0;
        while (i < length) {
            int token = window[i];
            int runEnd = i + 1;
            while (runEnd < length && window[runEnd] == token) {
                runEnd++;
            }
            if (token < 0 || token >= logits.length) {
                throw new IllegalArgumentException("token id " + token + " in the history is outside the vocabulary of "
                        + logits.length + " tokens");
            }
            float logit = logits[token];
            logit = logit > 0 ? logit / repetition : logit * repetition;
            logits[token] = logit - ((runEnd - i) * frequency + presence);
            i = runEnd;
        }
    }
}
