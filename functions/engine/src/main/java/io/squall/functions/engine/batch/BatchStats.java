package io.squall.functions.engine.batch;

/**
 * A snapshot of a scheduler's load, for load reports and metrics.
 *
 * @param running sequences in the batch
 * @param waiting sequences queued for admission
 * @param freeKvBlocks KV blocks not held by any sequence
 * @param totalKvBlocks KV blocks in all
 * @param lastStepTokens tokens in the most recent forward pass
 * @param steps forward passes run so far
 * @param generatedTokens tokens emitted so far
 * @param preemptions sequences preempted so far for lack of KV blocks
 * @param promptTokensComputed prompt tokens run through the model so far (prefix reuse skips the others)
 */
public record BatchStats(int running, int waiting, int freeKvBlocks, int totalKvBlocks, int lastStepTokens,
                         long steps, long generatedTokens, long preemptions, long promptTokensComputed) {
}
