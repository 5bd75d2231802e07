package io.squall.scheduler.sizing;

import io.squall.scheduler.observe.PoolLoad;

/**
 * Replicas from load alone, for when no profile exists: a pool whose workers hold more than {@code kvHigh} of their
 * KV blocks, or queue more than {@code queueHigh} sequences each, grows by a quarter (at least one worker); one below
 * {@code kvLow} with nothing queued shrinks by one. Immutable.
 *
 * @param kvHigh    KV usage above which a pool grows
 * @param kvLow     KV usage below which an idle pool shrinks
 * @param queueHigh waiting sequences per worker above which a pool grows
 */
public record LoadSizer(double kvHigh, double kvLow, double queueHigh) {

    public LoadSizer {
        if (!(kvLow >= 0) || !(kvLow < kvHigh) || !(kvHigh <= 1) || !(queueHigh >= 0)) {
            throw new IllegalArgumentException("load thresholds need 0 <= kvLow < kvHigh <= 1 and queueHigh >= 0");
        }
    }

    /** KV usage 80% / 30%, more than one waiting sequence per worker. */
    public static LoadSizer defaults() {
        return new LoadSizer(0.8, 0.3, 1.0);
    }

    /** Workers the pool needs, given what they show now. */
    public double demand(PoolLoad load) {
        int ready = load.ready();
        if (load.kvUsage() > kvHigh || load.queuedPerWorker() > queueHigh) {
            return ready + Math.max(1, Math.ceil(ready * 0.25));
        }
        if (load.kvUsage() < kvLow && load.queuedSequences() == 0) {
            return Math.max(0, ready - 1);
        }
        return ready;
    }
}
