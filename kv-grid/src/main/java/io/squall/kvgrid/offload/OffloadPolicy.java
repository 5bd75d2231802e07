package io.squall.kvgrid.offload;

import io.squall.kvgrid.Tier;
import java.util.Objects;

/**
 * Which lower tiers a block evicted from G1 is copied to. Every chosen tier gets its own copy at
 * eviction time (write-through down the hierarchy), so a block dropped later by G2 may still be in G3
 * or G4. Immutable.
 *
 * @param host        copy every evicted block to G2
 * @param diskMinHits copy to G3 only blocks that had at least this many prefix hits in G1 (≥ 0)
 * @param grid        copy every evicted block to G4, the shared grid
 */
public record OffloadPolicy(boolean host, int diskMinHits, boolean grid) {

    public OffloadPolicy {
        if (diskMinHits < 0) {
            throw new IllegalArgumentException("diskMinHits must be >= 0");
        }
    }

    /** Everything to G2, to G3 what was hit at least twice, nothing to G4. */
    public static OffloadPolicy standard() {
        return new OffloadPolicy(true, 2, false);
    }

    /** Whether a block with {@code hits} prefix hits goes to {@code tier}. */
    public boolean wants(Tier tier, int hits) {
        return switch (Objects.requireNonNull(tier, "tier")) {
            case G1 -> false;
            case G2 -> host;
            case G3 -> hits >= diskMinHits;
            case G4 -> grid;
        };
    }
}
