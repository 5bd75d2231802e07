package io.squall.kvgrid.metrics;

import io.squall.kvgrid.Tier;

/**
 * Receives the KV block manager's measurements. Counts are in blocks unless named tokens. Every
 * method defaults to doing nothing. Implementations must be thread-safe: the pool reports from its
 * owner thread, the offload manager from its own thread.
 */
public interface KvStats {

    /** Reports nothing. */
    KvStats NONE = new KvStats() { };

    /** {@code tier} now holds {@code blocks} blocks with data. */
    default void blocks(Tier tier, long blocks) {
    }

    /** {@code blocks} G1 blocks were handed out. */
    default void allocated(int blocks) {
    }

    /** {@code blocks} blocks were evicted from {@code tier}. */
    default void evicted(Tier tier, int blocks) {
    }

    /** {@code blocks} blocks were copied from {@code from} down to {@code to}. */
    default void offloaded(Tier from, Tier to, int blocks) {
    }

    /**
     * {@code blocks} evicted blocks lost the lower-tier copies the offload policy wanted: the tiers could not
     * keep up (every staging buffer stayed busy through the backpressure wait). An exception, logged.
     */
    default void offloadDropped(int blocks) {
    }

    /**
     * {@code blocks} copies down to {@code to} failed: the tier's store refused the write (a disk full, gone or
     * read-only). The blocks stay where they were and are recomputed if evicted; logged at most every 10 s.
     */
    default void offloadFailed(Tier to, int blocks) {
    }

    /** The pool's thread waited {@code nanos} for the offload lane to free a staging buffer (backpressure). */
    default void offloadStalled(long nanos) {
    }

    /** {@code blocks} copies are waiting on the offload write lane now. */
    default void offloadsPending(long blocks) {
    }

    /**
     * {@code blocks} copies in {@code tier} failed verification when read (a corrupt file or entry) and were
     * dropped; the blocks are recomputed.
     */
    default void discarded(Tier tier, int blocks) {
    }

    /** {@code blocks} blocks were copied from {@code from} back up to {@code to}. */
    default void onboarded(Tier from, Tier to, int blocks) {
    }

    /** A prefix lookup was made over {@code tokens} prompt tokens (in full blocks). */
    default void prefixLookup(long tokens) {
    }

    /** {@code tokens} prompt tokens were found cached in {@code tier}. */
    default void prefixMatched(Tier tier, long tokens) {
    }
}
