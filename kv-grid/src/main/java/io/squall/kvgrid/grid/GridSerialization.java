package io.squall.kvgrid.grid;

import com.hazelcast.nio.serialization.DataSerializableFactory;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;

/**
 * Creates this package's {@link IdentifiedDataSerializable} types by class id; registered on every
 * member by {@link GridMembers#config}. Ids are part of the wire format: never reuse or renumber.
 */
final class GridSerialization implements DataSerializableFactory {

    static final int FACTORY_ID = 0x5A1140;
    static final int BLOCK_LOCATIONS = 1;
    static final int ADD_LOCATION = 2;
    static final int REMOVE_LOCATION = 3;
    static final int REMOVE_WORKER = 4;
    static final int HELD_BY = 6;
    static final int KV_EVENT_BATCH = 7;
    static final int BLOCK_CHANGES = 8;

    @Override
    public IdentifiedDataSerializable create(int classId) {
        return switch (classId) {
            case BLOCK_LOCATIONS -> new BlockLocations();
            case ADD_LOCATION -> new LocationProcessors.AddLocation();
            case REMOVE_LOCATION -> new LocationProcessors.RemoveLocation();
            case REMOVE_WORKER -> new LocationProcessors.RemoveWorker();
            case HELD_BY -> new LocationProcessors.HeldBy();
            case KV_EVENT_BATCH -> new KvEventBatch();
            case BLOCK_CHANGES -> new BlockChanges();
            default -> throw new IllegalArgumentException("unknown kv-grid class id");
        };
    }
}
