package io.squall.kvgrid.grid;

import io.squall.kvgrid.Tier;
import io.squall.kvgrid.WorkerId;
import java.util.Objects;

/** One place a block lives: a worker and the tier of that worker holding it. */
public record BlockLocation(WorkerId worker, Tier tier) {
    public BlockLocation {
        Objects.requireNonNull(worker, "worker");
        Objects.requireNonNull(tier, "tier");
    }
}
