package io.squall.kvgrid.index;

import io.squall.kvgrid.KvEvent;
import io.squall.kvgrid.WorkerId;
import java.util.List;
import java.util.Objects;

/**
 * Everything one worker holds, as of its event {@code lastEventId}: the repair for a detected gap.
 *
 * @param events the worker's blocks as {@link KvEvent.Stored} events of {@code worker}; their own
 *     event ids are not checked
 */
public record WorkerSnapshot(WorkerId worker, long lastEventId, List<KvEvent.Stored> events) {

    public WorkerSnapshot {
        Objects.requireNonNull(worker, "worker");
        if (lastEventId < 0) {
            throw new IllegalArgumentException("snapshot event id must not be negative");
        }
        events = List.copyOf(events);
        for (KvEvent.Stored event : events) {
            if (!event.worker().equals(worker)) {
                throw new IllegalArgumentException("snapshot holds an event of another worker");
            }
        }
    }
}
