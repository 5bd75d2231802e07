package io.squall.functions.engine.batch;

/**
 * Limits of a {@link BatchScheduler}.
 *
 * @param maxRunningSequences sequences in the batch at once
 * @param maxBatchedTokens tokens per forward pass (decode tokens plus prefill chunks)
 * @param chunkedPrefill split prompts into chunks that fit beside running decodes; when false a prompt
 *                       is prefilled whole in one step, stalling the running streams meanwhile
 * @param maxWaitingSequences sequences queued for admission before new ones are rejected
 * @param kvBlocks KV blocks available to all sequences together
 * @param blockSize tokens per KV block
 */
public record BatchConfig(int maxRunningSequences, int maxBatchedTokens, boolean chunkedPrefill,
                          int maxWaitingSequences, int kvBlocks, int blockSize) {

    public BatchConfig {
        positive("maxRunningSequences", maxRunningSequences);
        positive("maxBatchedTokens", maxBatchedTokens);
        positive("maxWaitingSequences", maxWaitingSequences);
        positive("kvBlocks", kvBlocks);
        positive("blockSize", blockSize);
    }

    /** Defaults for a CPU worker: 64 sequences, 512 tokens per step, chunked prefill, 4096 blocks of 16 tokens. */
    public static BatchConfig defaults() {
        return new BatchConfig(64, 512, true, 1024, 4096, 16);
    }

    /** Blocks needed to hold {@code tokens} tokens. */
    int blocksFor(int tokens) {
        return (tokens + blockSize - 1) / blockSize;
    }

    private static void positive(String name, int value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be positive, got " + value);
        }
    }
}
