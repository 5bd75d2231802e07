package io.squall.kvgrid.grid;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.LocalBlockHash;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.WorkerId;
import java.io.IOException;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Every (worker, tier) holding one block, and the block's place in its prefix tree when a
 * {@code Stored} event recorded it: the value of the {@link BlockDirectory} map. Immutable once built
 * (the {@code with…} methods return new instances); only Hazelcast's deserialisation fills an empty
 * instance. Wire format: count (int), then per location worker (long) and tier ordinal (byte); then a
 * flags byte (bit 0: the prefix metadata is known, bit 1: the block has a parent), the local hash
 * (long) and the parent's hash (long) when the flags say so.
 */
public final class BlockLocations implements IdentifiedDataSerializable {

    private static final int KNOWN = 1;
    private static final int HAS_PARENT = 2;

    private Set<BlockLocation> locations;
    private int flags;
    private long localHash;
    private long parent;

    /** For deserialisation by {@link GridSerialization}. */
    BlockLocations() {
        this.locations = Set.of();
    }

    private BlockLocations(Collection<BlockLocation> locations, int flags, long localHash, long parent) {
        this.locations = Collections.unmodifiableSet(new LinkedHashSet<>(locations));
        this.flags = flags;
        this.localHash = localHash;
        this.parent = parent;
    }

    /** The locations, in the order they were added. Unmodifiable. */
    public Set<BlockLocation> locations() {
        return locations;
    }

    /** Whether {@link #localHash()} and {@link #parent()} are known (recorded from a {@code Stored} event). */
    public boolean prefixKnown() {
        return (flags & KNOWN) != 0;
    }

    /** The hash of the block's own tokens; meaningful when {@link #prefixKnown()}. */
    public LocalBlockHash localHash() {
        return new LocalBlockHash(localHash);
    }

    /** The block before this one in its sequence, or {@code null} for a first block or unknown metadata. */
    public BlockHash parent() {
        return (flags & HAS_PARENT) != 0 ? new BlockHash(parent) : null;
    }

    static BlockLocations of(BlockLocation location) {
        return new BlockLocations(Set.of(location), 0, 0, 0);
    }

    /** A first location with the block's prefix metadata. */
    static BlockLocations of(BlockLocation location, LocalBlockHash localHash, BlockHash parent) {
        return new BlockLocations(Set.of(location), KNOWN | (parent != null ? HAS_PARENT : 0), localHash.value(),
                parent == null ? 0 : parent.value());
    }

    /** These locations with the block's prefix metadata recorded. */
    BlockLocations withPrefix(LocalBlockHash local, BlockHash parentHash) {
        return new BlockLocations(locations, KNOWN | (parentHash != null ? HAS_PARENT : 0), local.value(),
                parentHash == null ? 0 : parentHash.value());
    }

    BlockLocations with(BlockLocation location) {
        LinkedHashSet<BlockLocation> next = new LinkedHashSet<>(locations);
        next.add(location);
        return new BlockLocations(next, flags, localHash, parent);
    }

    BlockLocations without(BlockLocation location) {
        LinkedHashSet<BlockLocation> next = new LinkedHashSet<>(locations);
        next.remove(location);
        return new BlockLocations(next, flags, localHash, parent);
    }

    BlockLocations withoutWorker(WorkerId worker) {
        LinkedHashSet<BlockLocation> next = new LinkedHashSet<>(locations);
        next.removeIf(location -> location.worker().equals(worker));
        return new BlockLocations(next, flags, localHash, parent);
    }

    /** Whether {@code worker} holds the block in some tier. */
    boolean heldBy(WorkerId worker) {
        for (BlockLocation location : locations) {
            if (location.worker().equals(worker)) {
                return true;
            }
        }
        return false;
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
        out.writeByte(flags);
        if ((flags & KNOWN) != 0) {
            out.writeLong(localHash);
        }
        if ((flags & HAS_PARENT) != 0) {
            out.writeLong(parent);
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
        flags = in.readByte();
        localHash = (flags & KNOWN) != 0 ? in.readLong() : 0;
        parent = (flags & HAS_PARENT) != 0 ? in.readLong() : 0;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof BlockLocations that && locations.equals(that.locations) && flags == that.flags
                && localHash == that.localHash && parent == that.parent;
    }

    @Override
    public int hashCode() {
        return locations.hashCode() * 31 + Long.hashCode(localHash);
    }

    @Override
    public String toString() {
        return locations.toString();
    }
}
