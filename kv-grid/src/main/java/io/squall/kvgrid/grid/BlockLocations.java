package io.squall.kvgrid.grid;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.WorkerId;
import java.io.IOException;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Every (worker, tier) holding one block: the value of the {@link BlockDirectory} map. Immutable once
 * built (the {@code with…} methods return new instances); only Hazelcast's deserialisation fills an
 * empty instance. Wire format: count (int), then per location worker (long) and tier ordinal (byte).
 */
public final class BlockLocations implements IdentifiedDataSerializable {

    private Set<BlockLocation> locations;

    /** For deserialisation by {@link GridSerialization}. */
    BlockLocations() {
        this.locations = Set.of();
    }

    private BlockLocations(Collection<BlockLocation> locations) {
        this.locations = Collections.unmodifiableSet(new LinkedHashSet<>(locations));
    }

    /** The locations, in the order they were added. Unmodifiable. */
    public Set<BlockLocation> locations() {
        return locations;
    }

    static BlockLocations of(BlockLocation location) {
        return new BlockLocations(Set.of(location));
    }

    BlockLocations with(BlockLocation location) {
        LinkedHashSet<BlockLocation> next = new LinkedHashSet<>(locations);
        next.add(location);
        return new BlockLocations(next);
    }

    BlockLocations without(BlockLocation location) {
        LinkedHashSet<BlockLocation> next = new LinkedHashSet<>(locations);
        next.remove(location);
        return new BlockLocations(next);
    }

    BlockLocations withoutWorker(WorkerId worker) {
        LinkedHashSet<BlockLocation> next = new LinkedHashSet<>(locations);
        next.removeIf(location -> location.worker().equals(worker));
        return new BlockLocations(next);
    }

    boolean isEmpty() {
        return locations.isEmpty();
    }

    @Override
    public int getFactoryId() {
        return GridSerialization.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return GridSerialization.BLOCK_LOCATIONS;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.writeInt(locations.size());
        for (BlockLocation location : locations) {
            out.writeLong(location.worker().value());
            out.writeByte(location.tier().ordinal());
        }
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        int count = in.readInt();
        if (count < 0) {
            throw new IOException("negative block location count");
        }
        LinkedHashSet<BlockLocation> read = new LinkedHashSet<>();
        Tier[] tiers = Tier.values();
        for (int i = 0; i < count; i++) {
            WorkerId worker = new WorkerId(in.readLong());
            int tier = in.readByte();
            if (tier < 0 || tier >= tiers.length) {
                throw new IOException("unknown tier ordinal in block locations");
            }
            read.add(new BlockLocation(worker, tiers[tier]));
        }
        locations = Collections.unmodifiableSet(read);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof BlockLocations that && locations.equals(that.locations);
    }

    @Override
    public int hashCode() {
        return locations.hashCode();
    }

    @Override
    public String toString() {
        return locations.toString();
    }
}
