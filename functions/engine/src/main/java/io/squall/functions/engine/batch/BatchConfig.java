package io.squall.functions.engine.batch;

/**
 * Limits of a {@link BatchScheduler}.
 *
 * @param maxRunningSequences sequences in the batch at once
 * @param maxBatchedTokens tokens per forward pass (decode tokens plus prefill chunks)
 * @param chunkedPrefill split prompts into chunks that fit beside running decodes; when false a prompt
 *                       is prefilled whole in one step, stalling the running streams meanwhile
 * @param maxWaitingSequences sequences queued for admission before new ones are rejected
 * @param prefixCaching reuse cached KV blocks of a matching prompt prefix instead of recomputing them
 */
public record BatchConfig(int maxRunningSequences, int maxBatchedTokens, boolean chunkedPrefill,
                          int maxWaitingSequences, boolean prefixCaching) {

    /** Sequences in a CPU worker's batch unless configured otherwise. */
    public static final int DEFAULT_MAX_RUNNING_SEQUENCES = 64;
    /** Tokens per forward pass of a CPU worker unless configured otherwise. */
    public static final int DEFAULT_MAX_BATCHED_TOKENS = 512;

    public BatchConfig {
        positive("maxRunningSequences", maxRunningSequences);
        positive("maxBatchedTokens", maxBatchedTokens);
        positive("maxWaitingSequences", maxWaitingSequences);
    }

    /** Defaults for a CPU worker: 64 sequences, 512 tokens per step, chunked prefill, 1024 waiting, prefix caching. */
    public static BatchConfig defaults() {
        return new BatchConfig(DEFAULT_MAX_RUNNING_SEQUENCES, DEFAULT_MAX_BATCHED_TOKENS, true, 1024, true);
    }

    private static void positive(String name, int value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be positive, got " + value);
        }
    }
}
