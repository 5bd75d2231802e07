package io.squall.kvgrid.grid;

import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.KvEvent;
import io.squall.kvgrid.LocalBlockHash;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.WorkerId;

import java.io.IOException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Many workers' {@code Stored} and {@code Removed} events as one entry processor, so a batch of events is one
 * {@code executeOnKeys} call instead of one per event: per block hash, the additions and removals of locations
 * in event order. The changes are held sorted by hash (stably, so a hash's own changes keep their order); each
 * entry finds its changes by binary search and applies them in turn, atomically on its partition thread.
 * Returns whether the entry changed.
 */
final class BlockChanges implements EntryProcessor<Long, BlockLocations, Boolean>, IdentifiedDataSerializable {

    private static final byte STORE = 0;
    private static final byte REMOVE = 1;
    private static final byte HAS_PARENT = 2;

    private long[] hashes;
    /** Per change: {@link #STORE} or {@link #REMOVE}, with {@link #HAS_PARENT} on a store whose block has one. */
    private byte[] kinds;
    private long[] workers;
    private byte[] tiers;
    private long[] locals;
    private long[] parents;

    /** For deserialisation by {@link GridSerialization}. */
    BlockChanges() {
    }

    /** The changes of {@code events}, which hold no {@code Cleared} event. */
    static BlockChanges of(List<KvEvent> events) {
        int n = 0;
        for (KvEvent event : events) {
            n += switch (event) {
                case KvEvent.Stored stored -> stored.blocks().size();
                case KvEvent.Removed removed -> removed.hashes().size();
                case KvEvent.Cleared cleared -> throw new IllegalArgumentException("a Cleared event is not a block change");
            };
        }
        BlockChanges changes = new BlockChanges();
        changes.allocate(n);
        int i = 0;
        for (KvEvent event : events) {
            switch (event) {
                case KvEvent.Stored stored -> {
                    BlockHash parent = stored.parent();
                    for (KvEvent.StoredBlock block : stored.blocks()) {
                        changes.set(i++, block.hash().value(), parent == null ? STORE : STORE | HAS_PARENT,
                                stored.worker(), stored.tier(), block.localHash().value(),
                                parent == null ? 0 : parent.value());
                        parent = block.hash();
                    }
                }
                case KvEvent.Removed removed -> {
                    for (BlockHash hash : removed.hashes()) {
                        changes.set(i++, hash.value(), REMOVE, removed.worker(), removed.tier(), 0, 0);
                    }
                }
                case KvEvent.Cleared cleared -> throw new AssertionError("rejected above");
            }
        }
        changes.sortByHash();
        return changes;
    }

    /** The distinct block hashes the changes touch. */
    Set<Long> keys() {
        Set<Long> keys = new HashSet<>();
        for (long hash : hashes) {
            keys.add(hash);
        }
        return keys;
    }

    @Override
    public Boolean process(Map.Entry<Long, BlockLocations> entry) {
        long key = entry.getKey();
        int i = first(key);
        BlockLocations current = entry.getValue();
        boolean changed = false;
        for (; i < hashes.length && hashes[i] == key; i++) {
            BlockLocation location = new BlockLocation(new WorkerId(workers[i]), Tier.values()[tiers[i]]);
            if ((kinds[i] & REMOVE) != 0) {
                if (current != null && current.locations().contains(location)) {
                    current = current.without(location);
                    changed = true;
                }
                continue;
            }
            LocalBlockHash local = new LocalBlockHash(locals[i]);
            BlockHash parent = (kinds[i] & HAS_PARENT) != 0 ? new BlockHash(parents[i]) : null;
            if (current == null || current.isEmpty()) {
                current = BlockLocations.of(location, local, parent);
                changed = true;
            } else {
                if (!current.locations().contains(location)) {
                    current = current.with(location);
                    changed = true;
                }
                if (!current.prefixKnown()) {
                    current = current.withPrefix(local, parent);
                }
            }
        }
        if (changed || current != entry.getValue()) {
            entry.setValue(current == null || current.isEmpty() ? null : current);
        }
        return changed;
    }

    /** The index of the first change of {@code key}, or where it would be. */
    private int first(long key) {
        int low = 0;
        int high = hashes.length;
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (hashes[mid] < key) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        return low;
    }

    private void allocate(int n) {
        hashes = new long[n];
        kinds = new byte[n];
        workers = new long[n];
        tiers = new byte[n];
        locals = new long[n];
        parents = new long[n];
    }

    private void set(int i, long hash, int kind, WorkerId worker, Tier tier, long local, long parent) {
        hashes[i] = hash;
        kinds[i] = (byte) kind;
        workers[i] = worker.value();
        tiers[i] = (byte) tier.ordinal();
        locals[i] = local;
        parents[i] = parent;
    }

    /** Stable: changes of one hash keep their event order. */
    private void sortByHash() {
        Integer[] order = new Integer[hashes.length];
        Arrays.setAll(order, i -> i);
        Arrays.sort(order, (a, b) -> Long.compare(hashes[a], hashes[b])); // TimSort: stable
        long[] h = hashes;
        byte[] k = kinds;
        long[] w = workers;
        byte[] t = tiers;
        long[] l = locals;
        long[] p = parents;
        allocate(order.length);
        for (int i = 0; i < order.length; i++) {
            int from = order[i];
            hashes[i] = h[from];
            kinds[i] = k[from];
            workers[i] = w[from];
            tiers[i] = t[from];
            locals[i] = l[from];
            parents[i] = p[from];
        }
    }

    @Override
    public int getFactoryId() {
        return GridSerialization.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return GridSerialization.BLOCK_CHANGES;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.writeLongArray(hashes);
        out.writeByteArray(kinds);
        out.writeLongArray(workers);
        out.writeByteArray(tiers);
        out.writeLongArray(locals);
        out.writeLongArray(parents);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        hashes = in.readLongArray();
        kinds = in.readByteArray();
        workers = in.readLongArray();
        tiers = in.readByteArray();
        locals = in.readLongArray();
        parents = in.readLongArray();
        int n = hashes == null ? -1 : hashes.length;
        if (n < 0 || kinds == null || kinds.length != n || workers == null || workers.length != n || tiers == null
                || tiers.length != n || locals == null || locals.length != n || parents == null || parents.length != n) {
            throw new IOException("a block-changes processor needs one kind, worker, tier, local hash and parent per hash");
        }
        for (byte tier : tiers) {
            if (tier < 0 || tier >= Tier.values().length) {
                throw new IOException("unknown tier ordinal in block changes");
            }
        }
        for (int i = 1; i < n; i++) {
            if (hashes[i - 1] > hashes[i]) {
                throw new IOException("block changes must be sorted by hash");
            }
        }
    }
}
