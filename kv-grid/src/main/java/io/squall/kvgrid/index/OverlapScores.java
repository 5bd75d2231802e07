package io.squall.kvgrid.index;

import io.squall.kvgrid.Tier;
import io.squall.kvgrid.WorkerId;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The answer to a prefix lookup: for each worker, the number of leading blocks of the prompt it
 * holds in tier {@code t} <em>or a faster one</em>. So {@code blocks(w, G1)} is the prefix the worker
 * can attend to at once, and {@code blocks(w, G2) - blocks(w, G1)} more blocks can be onboarded from
 * host memory instead of recomputed; the counts never decrease from G1 to G4. Workers holding not
 * even the first block are absent. Immutable.
 */
public final class OverlapScores {

    private static final int TIERS = Tier.values().length;

    private final int promptBlocks;
    private final Map<WorkerId, int[]> depths;

    private OverlapScores(int promptBlocks, Map<WorkerId, int[]> depths) {
        this.promptBlocks = promptBlocks;
        this.depths = depths;
    }

    /** No worker holds any block of a prompt of {@code promptBlocks} blocks. */
    public static OverlapScores none(int promptBlocks) {
        return new OverlapScores(promptBlocks, Map.of());
    }

    /** Collects the scores of one lookup; used by index implementations. */
    public static Builder builder(int promptBlocks) {
        return new Builder(promptBlocks);
    }

    /** Length of the prompt that was looked up, in blocks. */
    public int promptBlocks() {
        return promptBlocks;
    }

    /** Workers holding at least the prompt's first block in some tier. */
    public Set<WorkerId> workers() {
        return depths.keySet();
    }

    /** Leading blocks of the prompt that {@code worker} holds in {@code tier} or a faster tier. */
    public int blocks(WorkerId worker, Tier tier) {
        int[] depth = depths.get(Objects.requireNonNull(worker, "worker"));
        return depth == null ? 0 : depth[tier.ordinal()];
    }

    /** Leading blocks of the prompt in {@code worker}'s device pool (G1): Dynamo's overlap score. */
    public int deviceBlocks(WorkerId worker) {
        return blocks(worker, Tier.G1);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof OverlapScores that && promptBlocks == that.promptBlocks && depthsEqual(that);
    }

    private boolean depthsEqual(OverlapScores that) {
        if (!depths.keySet().equals(that.depths.keySet())) {
            return false;
        }
        for (Map.Entry<WorkerId, int[]> entry : depths.entrySet()) {
            if (!Arrays.equals(entry.getValue(), that.depths.get(entry.getKey()))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        int hash = promptBlocks;
        for (Map.Entry<WorkerId, int[]> entry : depths.entrySet()) {
            hash += entry.getKey().hashCode() ^ Arrays.hashCode(entry.getValue());
        }
        return hash;
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder("OverlapScores[").append(promptBlocks).append(" blocks");
        depths.forEach((worker, depth) -> text.append(", ").append(worker).append('=').append(Arrays.toString(depth)));
        return text.append(']').toString();
    }

    /** Accumulates per-worker depths; not thread-safe, and {@link #build()} is called once. */
    public static final class Builder {

        private final int promptBlocks;
        private final Map<WorkerId, int[]> depths = new HashMap<>();

        private Builder(int promptBlocks) {
            if (promptBlocks < 0) {
                throw new IllegalArgumentException("prompt length must not be negative (blocks)");
            }
            this.promptBlocks = promptBlocks;
        }

        /**
         * Records that {@code worker} holds the first {@code blocks} blocks in {@code tier} or faster.
         * Depths must not decrease from a faster to a slower tier and must not exceed the prompt.
         */
        public Builder depth(WorkerId worker, Tier tier, int blocks) {
            Objects.requireNonNull(worker, "worker");
            if (blocks < 0 || blocks > promptBlocks) {
                throw new IllegalArgumentException("overlap depth must lie within the prompt (blocks)");
            }
            if (blocks > 0) {
                depths.computeIfAbsent(worker, w -> new int[TIERS])[tier.ordinal()] = blocks;
            }
            return this;
        }

        public OverlapScores build() {
            for (int[] depth : depths.values()) {
                for (int t = 1; t < TIERS; t++) {
                    if (depth[t] < depth[t - 1]) {
                        throw new IllegalStateException("overlap depth must not decrease from a faster tier to a slower one");
                    }
                }
            }
            return new OverlapScores(promptBlocks, Collections.unmodifiableMap(depths));
        }
    }
}
