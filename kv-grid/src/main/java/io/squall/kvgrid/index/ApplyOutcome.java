package io.squall.kvgrid.index;

import io.squall.kvgrid.WorkerId;
import java.util.Objects;

/** What applying one event did; a {@link Gap} tells the owner to fetch a snapshot of the worker. */
public sealed interface ApplyOutcome {

    /** The shared outcome of an event applied in order. */
    ApplyOutcome APPLIED = new Applied();

    /** The event was the one expected next and was applied. */
    record Applied() implements ApplyOutcome {}

    /**
     * Events {@code expected .. received-1} of {@code worker} were never seen; the event {@code
     * received} was applied anyway, and the index is unreliable for this worker until a snapshot
     * replaces its state.
     */
    record Gap(WorkerId worker, long expected, long received) implements ApplyOutcome {
        public Gap {
            Objects.requireNonNull(worker, "worker");
        }
    }

    /** The event's id was not above {@code lastApplied} (a duplicate or replay), so it was ignored. */
    record Stale(WorkerId worker, long lastApplied, long received) implements ApplyOutcome {
        public Stale {
            Objects.requireNonNull(worker, "worker");
        }
    }
}
