package io.squall.kvgrid.offload;

import io.squall.kvgrid.Tier;
import java.util.Objects;

/**
 * Which lower tiers hold copies of G1 blocks. A tier that {@linkplain #wants wants} blocks without hits gets
 * every block as soon as it is committed (eagerly, long before G1 evicts it); a tier that wants only blocks
 * with more hits gets them when G1 evicts them having had those hits; every chosen tier gets its own copy, so a
 * block dropped later by G2 may still be in G3 or G4. With {@link #spill}, what G2 evicts to make room moves
 * down into G3. Immutable.
 *
 * @param host        copy every block to G2
 * @param diskMinHits copy to G3 the blocks that had at least this many prefix hits in G1 (≥ 0; 0: every
 *                    block, eagerly)
 * @param grid        copy every block to G4, the shared grid
 * @param spill       blocks G2 evicts to make room are written to G3 (when both exist)
 */
public record OffloadPolicy(boolean host, int diskMinHits, boolean grid, boolean spill) {

    public OffloadPolicy {
        if (diskMinHits < 0) {
            throw new IllegalArgumentException("diskMinHits must be >= 0");
        }
    }

    /** As the canonical constructor, with G2's evictions spilling into G3. */
    public OffloadPolicy(boolean host, int diskMinHits, boolean grid) {
        this(host, diskMinHits, grid, true);
    }

    /** Everything to G2, to G3 what was hit at least twice and what G2 evicts, nothing to G4. */
    public static OffloadPolicy standard() {
        return new OffloadPolicy(true, 2, false, true);
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
