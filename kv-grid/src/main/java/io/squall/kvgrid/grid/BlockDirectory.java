package io.squall.kvgrid.grid;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.KvEvent;
import io.squall.kvgrid.WorkerId;
import io.squall.kvgrid.index.WorkerSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The cluster-wide index of where each block lives: {@code IMap<Long, BlockLocations>} keyed by the
 * chained block hash. Every change is an entry processor, so concurrent updates from many workers
 * never lose each other's locations, and each entry has the configured synchronous backups.
 *
 * <p>Thread-safe. Every method is a blocking remote call: call it from an event-consumer thread, not
 * from a scheduler or I/O event loop.
 */
public final class BlockDirectory {

    /** The distributed map's name; {@link GridMembers#config} configures its backups. */
    public static final String MAP_NAME = "squall-kv-locations";

    private final IMap<Long, BlockLocations> map;

    public BlockDirectory(HazelcastInstance member) {
        this.map = Objects.requireNonNull(member, "member").getMap(MAP_NAME);
    }

    /** Records that {@code location} holds the block; returns whether that is new. */
    public boolean add(BlockHash hash, BlockLocation location) {
        Objects.requireNonNull(location, "location");
        return map.executeOnKey(key(hash), new LocationProcessors.AddLocation(location));
    }

    /** Records that {@code location} no longer holds the block; returns whether it did. */
    public boolean remove(BlockHash hash, BlockLocation location) {
        Objects.requireNonNull(location, "location");
        return map.executeOnKey(key(hash), new LocationProcessors.RemoveLocation(location));
    }

    /** Removes every location of {@code worker}, e.g. when it leaves or clears its cache. */
    public void removeWorker(WorkerId worker) {
        map.executeOnEntries(new LocationProcessors.RemoveWorker(Objects.requireNonNull(worker, "worker")));
    }

    /** Where the block lives now; empty if nowhere known. */
    public Set<BlockLocation> locations(BlockHash hash) {
        BlockLocations locations = map.get(key(hash));
        return locations == null ? Set.of() : locations.locations();
    }

    /** Hashes with at least one location, cluster-wide. */
    public int size() {
        return map.size();
    }

    /**
     * Applies workers' events in order: {@code Stored} adds, {@code Removed} removes, {@code Cleared} removes all
     * of the worker's locations. The events between two {@code Cleared} ones go as one entry processor
     * ({@link BlockChanges}) in one call, so a batch costs a call per member rather than one per event.
     * Usable as a {@code KvEventPublisher} sink on a thread that may block.
     */
    public void apply(List<KvEvent> events) {
        int from = 0;
        for (int i = 0; i < events.size(); i++) {
            if (events.get(i) instanceof KvEvent.Cleared cleared) {
                applyChanges(events.subList(from, i));
                removeWorker(cleared.worker());
                from = i + 1;
            }
        }
        applyChanges(events.subList(from, events.size()));
    }

    private void applyChanges(List<KvEvent> events) {
        if (events.isEmpty()) {
            return;
        }
        BlockChanges changes = BlockChanges.of(events);
        Set<Long> keys = changes.keys();
        if (!keys.isEmpty()) {
            map.executeOnKeys(keys, changes);
        }
    }

    /**
     * Everything {@code worker} holds according to the directory, as a snapshot stamped {@code lastEventId}: one
     * {@code Stored} event per block and tier, with the block's parent and local hash (a block recorded through
     * {@link #add}, without a {@code Stored} event, has no parent and local hash 0). The directory applies a
     * worker's events before routers see them, so it reflects at least every event the caller has received.
     */
    public WorkerSnapshot snapshot(WorkerId worker, long lastEventId) {
        Objects.requireNonNull(worker, "worker");
        List<KvEvent.Stored> events = new ArrayList<>();
        for (Map.Entry<Long, BlockLocations> entry : map.entrySet(new LocationProcessors.HeldBy(worker))) {
            BlockLocations value = entry.getValue();
            KvEvent.StoredBlock block = new KvEvent.StoredBlock(new BlockHash(entry.getKey()), value.localHash());
            for (BlockLocation location : value.locations()) {
                if (location.worker().equals(worker)) {
                    events.add(new KvEvent.Stored(worker, lastEventId, value.parent(), List.of(block), location.tier()));
                }
            }
        }
        return new WorkerSnapshot(worker, lastEventId, events);
    }

    private static Long key(BlockHash hash) {
        return Objects.requireNonNull(hash, "hash").value();
    }
}
