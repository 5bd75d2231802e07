package io.squall.kvgrid.index;

import io.squall.kvgrid.Tier;
import io.squall.kvgrid.WorkerId;
import java.util.Arrays;
import java.util.Objects;
import java.util.Set;

/**
 * The answer to a prefix lookup: for each worker, the number of leading blocks of the prompt it
 * holds in tier {@code t} <em>or a faster one</em>. So {@code blocks(w, G1)} is the prefix the worker
 * can attend to at once, and {@code blocks(w, G2) - blocks(w, G1)} more blocks can be onboarded from
 * host memory instead of recomputed; the counts never decrease from G1 to G4. Workers holding not
 * even the first block are absent.
 *
 * <p>Immutable, so it may cross threads. Stored as primitive arrays: the workers in no particular
 * order and their depths, {@link #TIERS} ints per worker; iterate with {@link #size()}, {@link
 * #worker(int)} and {@link #blocks(int, Tier)} to avoid per-worker lookups.
 */
public final class OverlapScores {

    /** Depths recorded per worker, one per {@link Tier}. */
    public static final int TIERS = Tier.values().length;

    private static final WorkerId[] NO_WORKERS = {};
    private static final int[] NO_DEPTHS = {};

    private final int promptBlocks;
    private final WorkerId[] workers;
    private final long[] ids;
    private final int[] depths;

    private OverlapScores(int promptBlocks, WorkerId[] workers, int[] depths) {
        this.promptBlocks = promptBlocks;
        this.workers = workers;
        this.depths = depths;
        this.ids = new long[workers.length];
        for (int i = 0; i < workers.length; i++) {
            ids[i] = workers[i].value();
        }
    }

    /** No worker holds any block of a prompt of {@code promptBlocks} blocks. */
    public static OverlapScores none(int promptBlocks) {
        if (promptBlocks < 0) {
            throw new IllegalArgumentException("prompt length must not be negative (blocks)");
        }
        return new OverlapScores(promptBlocks, NO_WORKERS, NO_DEPTHS);
    }

    /** Collects the scores of one lookup; used by index implementations. */
    public static Builder builder(int promptBlocks) {
        return new Builder().reset(promptBlocks);
    }

    /** Length of the prompt that was looked up, in blocks. */
    public int promptBlocks() {
        return promptBlocks;
    }

    /** Number of workers holding at least the prompt's first block in some tier. */
    public int size() {
        return workers.length;
    }

    /** The {@code i}-th worker, {@code 0 <= i < size()}, in no particular order. */
    public WorkerId worker(int i) {
        Objects.checkIndex(i, workers.length);
        return workers[i];
    }

    /** Leading blocks of the prompt that the {@code i}-th worker holds in {@code tier} or a faster tier. */
    public int blocks(int i, Tier tier) {
        Objects.checkIndex(i, workers.length);
        return depths[i * TIERS + tier.ordinal()];
    }

    /** Workers holding at least the prompt's first block in some tier (a new immutable set per call). */
    public Set<WorkerId> workers() {
        return Set.of(workers);
    }

    /** Leading blocks of the prompt that {@code worker} holds in {@code tier} or a faster tier. */
    public int blocks(WorkerId worker, Tier tier) {
        int i = indexOf(Objects.requireNonNull(worker, "worker").value());
        return i < 0 ? 0 : depths[i * TIERS + tier.ordinal()];
    }

    /** Leading blocks of the prompt in {@code worker}'s device pool (G1): Dynamo's overlap score. */
    public int deviceBlocks(WorkerId worker) {
        return blocks(worker, Tier.G1);
    }

    private int indexOf(long id) {
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] == id) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public boolean equals(Object other) {
        if (!(other instanceof OverlapScores that) || promptBlocks != that.promptBlocks || size() != that.size()) {
            return false;
        }
        for (int i = 0; i < workers.length; i++) {
            int j = that.indexOf(ids[i]);
            if (j < 0 || !Arrays.equals(depths, i * TIERS, (i + 1) * TIERS, that.depths, j * TIERS, (j + 1) * TIERS)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        int hash = promptBlocks;
        for (int i = 0; i < workers.length; i++) {
            int depth = 1;
            for (int t = 0; t < TIERS; t++) {
                depth = 31 * depth + depths[i * TIERS + t];
            }
            hash += workers[i].hashCode() ^ depth; // order-independent, like equals
        }
        return hash;
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder("OverlapScores[").append(promptBlocks).append(" blocks");
        for (int i = 0; i < workers.length; i++) {
            text.append(", ").append(workers[i]).append('=')
                    .append(Arrays.toString(Arrays.copyOfRange(depths, i * TIERS, (i + 1) * TIERS)));
        }
        return text.append(']').toString();
    }

    /**
     * Accumulates per-worker depths into growable primitive arrays; not thread-safe. {@link
     * #build()} copies what was recorded, so an index may keep one builder and {@link #reset} it for
     * every lookup. Depths of one worker are best given consecutively: finding the worker again is a
     * linear scan.
     */
    public static final class Builder {

        private int promptBlocks;
        private WorkerId[] workers = new WorkerId[8];
        private int[] depths = new int[8 * TIERS];
        private int count;

        private Builder() {
        }

        /** Forgets everything recorded and starts on a prompt of {@code promptBlocks} blocks. */
        public Builder reset(int promptBlocks) {
            if (promptBlocks < 0) {
                throw new IllegalArgumentException("prompt length must not be negative (blocks)");
            }
            this.promptBlocks = promptBlocks;
            Arrays.fill(workers, 0, count, null);
            Arrays.fill(depths, 0, count * TIERS, 0);
            count = 0;
            return this;
        }

        /**
         * Records that {@code worker} holds the first {@code blocks} blocks in {@code tier} or faster.
         * Depths must not decrease from a faster to a slower tier and must not exceed the prompt.
         */
        public Builder depth(WorkerId worker, Tier tier, int blocks) {
            Objects.requireNonNull(worker, "worker");
            checkDepth(blocks);
            if (blocks > 0) {
                int row = rowOf(worker); // before reading the depths field: it may grow the array
                depths[row * TIERS + tier.ordinal()] = blocks;
            }
            return this;
        }

        /**
         * Records all tiers of {@code worker} at once: {@code byTier[from + t]} blocks in tier {@code t}
         * or faster. A worker whose slowest-tier depth is 0 is skipped. The worker must not have been
         * recorded before.
         */
        public Builder depths(WorkerId worker, int[] byTier, int from) {
            Objects.requireNonNull(worker, "worker");
            Objects.checkFromIndexSize(from, TIERS, byTier.length);
            if (byTier[from + TIERS - 1] == 0) {
                return this;
            }
            int row = append(worker);
            for (int t = 0; t < TIERS; t++) {
                checkDepth(byTier[from + t]);
                depths[row * TIERS + t] = byTier[from + t];
            }
            return this;
        }

        /** The scores recorded since the last {@link #reset}; the builder stays usable. */
        public OverlapScores build() {
            for (int i = 0; i < count; i++) {
                for (int t = 1; t < TIERS; t++) {
                    if (depths[i * TIERS + t] < depths[i * TIERS + t - 1]) {
                        throw new IllegalStateException("overlap depth must not decrease from a faster tier to a slower one");
                    }
                }
            }
            return count == 0
                    ? OverlapScores.none(promptBlocks)
                    : new OverlapScores(promptBlocks, Arrays.copyOf(workers, count), Arrays.copyOf(depths, count * TIERS));
        }

        private void checkDepth(int blocks) {
            if (blocks < 0 || blocks > promptBlocks) {
                throw new IllegalArgumentException("overlap depth must lie within the prompt (blocks)");
            }
        }

        private int rowOf(WorkerId worker) {
            for (int i = count - 1; i >= 0; i--) { // the latest worker first: callers give a worker's tiers together
                if (workers[i].equals(worker)) {
                    return i;
                }
            }
            return append(worker);
        }

        private int append(WorkerId worker) {
            if (count == workers.length) {
                workers = Arrays.copyOf(workers, count * 2);
                depths = Arrays.copyOf(depths, count * 2 * TIERS);
            }
            workers[count] = worker;
            return count++;
        }
    }
}
