package io.squall.functions.discovery;

/**
 * A worker's load, as routers and the planner see it.
 *
 * @param activeSequences sequences in the running batch
 * @param queuedSequences sequences waiting for admission
 * @param freeKvBlocks KV blocks not held by any sequence
 * @param totalKvBlocks KV blocks in all
 * @param batchedTokens tokens in the most recent forward pass
 */
public record LoadReport(int activeSequences, int queuedSequences, int freeKvBlocks, int totalKvBlocks,
                         int batchedTokens) {

    /** The load of an idle worker with {@code kvBlocks} blocks. */
    public static LoadReport idle(int kvBlocks) {
        return new LoadReport(0, 0, kvBlocks, kvBlocks, 0);
    }
}
