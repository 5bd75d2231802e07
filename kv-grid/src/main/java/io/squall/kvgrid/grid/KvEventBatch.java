package io.squall.kvgrid.grid;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.KvEvent;
import io.squall.kvgrid.LocalBlockHash;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.WorkerId;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * One batch of a worker's KV events as a message on {@link KvEventTopic}. Wire format: event count (int),
 * then per event a kind byte (0 stored, 1 removed, 2 cleared), worker (long), event id (long) and for
 * {@code Stored}: tier ordinal (byte), has-parent (boolean), parent (long), block count (int), then per
 * block hash and local hash (longs); for {@code Removed}: tier ordinal (byte), hash count (int), hashes.
 */
final class KvEventBatch implements IdentifiedDataSerializable {

    private static final int STORED = 0;
    private static final int REMOVED = 1;
    private static final int CLEARED = 2;

    private List<KvEvent> events;

    /** For deserialisation by {@link GridSerialization}. */
    KvEventBatch() {
        this.events = List.of();
    }

    KvEventBatch(List<KvEvent> events) {
        this.events = List.copyOf(events);
    }

    List<KvEvent> events() {
        return events;
    }

    @Override
    public int getFactoryId() {
        return GridSerialization.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return GridSerialization.KV_EVENT_BATCH;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.writeInt(events.size());
        for (KvEvent event : events) {
            switch (event) {
                case KvEvent.Stored stored -> {
                    header(out, STORED, event);
                    out.writeByte(stored.tier().ordinal());
                    out.writeBoolean(stored.parent() != null);
                    out.writeLong(stored.parent() == null ? 0 : stored.parent().value());
                    out.writeInt(stored.blocks().size());
                    for (KvEvent.StoredBlock block : stored.blocks()) {
                        out.writeLong(block.hash().value());
                        out.writeLong(block.localHash().value());
                    }
                }
                case KvEvent.Removed removed -> {
                    header(out, REMOVED, event);
                    out.writeByte(removed.tier().ordinal());
                    out.writeInt(removed.hashes().size());
                    for (BlockHash hash : removed.hashes()) {
                        out.writeLong(hash.value());
                    }
                }
                case KvEvent.Cleared cleared -> header(out, CLEARED, cleared);
            }
        }
    }

    private static void header(ObjectDataOutput out, int kind, KvEvent event) throws IOException {
        out.writeByte(kind);
        out.writeLong(event.worker().value());
        out.writeLong(event.eventId());
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        int count = count(in);
        List<KvEvent> read = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int kind = in.readByte();
            WorkerId worker = new WorkerId(in.readLong());
            long eventId = in.readLong();
            read.add(switch (kind) {
                case STORED -> {
                    Tier tier = tier(in);
                    boolean hasParent = in.readBoolean();
                    long parent = in.readLong();
                    int blocks = count(in);
                    List<KvEvent.StoredBlock> stored = new ArrayList<>(blocks);
                    for (int b = 0; b < blocks; b++) {
                        stored.add(new KvEvent.StoredBlock(new BlockHash(in.readLong()), new LocalBlockHash(in.readLong())));
                    }
                    yield new KvEvent.Stored(worker, eventId, hasParent ? new BlockHash(parent) : null, stored, tier);
                }
                case REMOVED -> {
                    Tier tier = tier(in);
                    int hashes = count(in);
                    List<BlockHash> removed = new ArrayList<>(hashes);
                    for (int h = 0; h < hashes; h++) {
                        removed.add(new BlockHash(in.readLong()));
                    }
                    yield new KvEvent.Removed(worker, eventId, removed, tier);
                }
                case CLEARED -> new KvEvent.Cleared(worker, eventId);
                default -> throw new IOException("unknown KV event kind " + kind);
            });
        }
        events = List.copyOf(read);
    }

    private static int count(ObjectDataInput in) throws IOException {
        int count = in.readInt();
        if (count < 0) {
            throw new IOException("negative count in a KV event batch");
        }
        return count;
    }

    private static Tier tier(ObjectDataInput in) throws IOException {
        int ordinal = in.readByte();
        if (ordinal < 0 || ordinal >= Tier.values().length) {
            throw new IOException("unknown tier ordinal " + ordinal);
        }
        return Tier.values()[ordinal];
    }
}
