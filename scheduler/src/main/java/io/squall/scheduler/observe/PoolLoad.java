package io.squall.scheduler.observe;

/**
 * A pool's workers as their latest load reports show them.
 *
 * @param ready            workers registered in discovery (serving)
 * @param activeSequences  sequences running on them, summed
 * @param queuedSequences  sequences waiting for admission, summed
 * @param kvUsage          the mean share of their G1 KV blocks held by running sequences (0 to 1)
 */
public record PoolLoad(int ready, long activeSequences, long queuedSequences, double kvUsage) {

    public static final PoolLoad EMPTY = new PoolLoad(0, 0, 0, 0);

    /** Running sequences per worker; 0 without workers. */
    public double activePerWorker() {
        return ready == 0 ? 0 : activeSequences / (double) ready;
    }

    /** Waiting sequences per worker; 0 without workers. */
    public double queuedPerWorker() {
        return ready == 0 ? 0 : queuedSequences / (double) ready;
    }
}
