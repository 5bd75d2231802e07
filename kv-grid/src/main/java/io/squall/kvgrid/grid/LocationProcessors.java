package io.squall.kvgrid.grid;

import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import com.hazelcast.query.Predicate;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.WorkerId;
import java.io.IOException;
import java.util.Map;

/**
 * The entry processors that change {@link BlockLocations}, each applied atomically on the key's
 * partition thread and, unchanged, on its backups (the default backup processor is the processor
 * itself); an entry whose last location goes is deleted, and each returns whether the entry changed.
 * Also the predicate that selects the entries of one worker.
 */
final class LocationProcessors {

    private LocationProcessors() {
    }

    /** A processor about one location: the location is its whole serialised state. */
    abstract static class OneLocation implements EntryProcessor<Long, BlockLocations, Boolean>, IdentifiedDataSerializable {

        BlockLocation location;

        OneLocation() {
        }

        OneLocation(BlockLocation location) {
            this.location = location;
        }

        @Override
        public int getFactoryId() {
            return GridSerialization.FACTORY_ID;
        }

        @Override
        public void writeData(ObjectDataOutput out) throws IOException {
            writeLocation(out, location);
        }

        @Override
        public void readData(ObjectDataInput in) throws IOException {
            location = readLocation(in);
        }
    }

    /** Adds one location. */
    static final class AddLocation extends OneLocation {

        AddLocation() {
        }

        AddLocation(BlockLocation location) {
            super(location);
        }

        @Override
        public Boolean process(Map.Entry<Long, BlockLocations> entry) {
            BlockLocations current = entry.getValue();
            if (current == null) {
                entry.setValue(BlockLocations.of(location));
                return true;
            }
            if (current.locations().contains(location)) {
                return false;
            }
            entry.setValue(current.with(location));
            return true;
        }

        @Override
        public int getClassId() {
            return GridSerialization.ADD_LOCATION;
        }
    }

    /** Removes one location. */
    static final class RemoveLocation extends OneLocation {

        RemoveLocation() {
        }

        RemoveLocation(BlockLocation location) {
            super(location);
        }

        @Override
        public Boolean process(Map.Entry<Long, BlockLocations> entry) {
            BlockLocations current = entry.getValue();
            if (current == null || !current.locations().contains(location)) {
                return false;
            }
            BlockLocations next = current.without(location);
            entry.setValue(next.isEmpty() ? null : next);
            return true;
        }

        @Override
        public int getClassId() {
            return GridSerialization.REMOVE_LOCATION;
        }
    }

    /** A serialisable about one worker: the worker is its whole serialised state. */
    abstract static class OneWorker implements IdentifiedDataSerializable {

        WorkerId worker;

        OneWorker() {
        }

        OneWorker(WorkerId worker) {
            this.worker = worker;
        }

        @Override
        public int getFactoryId() {
            return GridSerialization.FACTORY_ID;
        }

        @Override
        public void writeData(ObjectDataOutput out) throws IOException {
            out.writeLong(worker.value());
        }

        @Override
        public void readData(ObjectDataInput in) throws IOException {
            worker = new WorkerId(in.readLong());
        }
    }

    /** Removes every location of one worker. */
    static final class RemoveWorker extends OneWorker implements EntryProcessor<Long, BlockLocations, Boolean> {

        RemoveWorker() {
        }

        RemoveWorker(WorkerId worker) {
            super(worker);
        }

        @Override
        public Boolean process(Map.Entry<Long, BlockLocations> entry) {
            BlockLocations current = entry.getValue();
            if (current == null || !current.heldBy(worker)) {
                return false;
            }
            BlockLocations next = current.withoutWorker(worker);
            entry.setValue(next.isEmpty() ? null : next);
            return true;
        }

        @Override
        public int getClassId() {
            return GridSerialization.REMOVE_WORKER;
        }
    }

    /** Selects the entries one worker holds, evaluated on the members that own them. */
    static final class HeldBy extends OneWorker implements Predicate<Long, BlockLocations> {

        HeldBy() {
        }

        HeldBy(WorkerId worker) {
            super(worker);
        }

        @Override
        public boolean apply(Map.Entry<Long, BlockLocations> entry) {
            return entry.getValue().heldBy(worker);
        }

        @Override
        public int getClassId() {
            return GridSerialization.HELD_BY;
        }
    }

    private static void writeLocation(ObjectDataOutput out, BlockLocation location) throws IOException {
        out.writeLong(location.worker().value());
        out.writeByte(location.tier().ordinal());
    }

    private static BlockLocation readLocation(ObjectDataInput in) throws IOException {
        WorkerId worker = new WorkerId(in.readLong());
        int tier = in.readByte();
        if (tier < 0 || tier >= Tier.values().length) {
            throw new IOException("unknown tier ordinal in block location");
        }
        return new BlockLocation(worker, Tier.values()[tier]);
    }
}
