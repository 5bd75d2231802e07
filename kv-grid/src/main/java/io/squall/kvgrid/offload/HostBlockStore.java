package io.squall.kvgrid.offload;

import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.Tier;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * G2: pages in one off-heap host-memory slab of {@code capacityBytes / blockBytes} slots, evicting the
 * least recently used block when full. Host memory is trusted, so pages carry no checksum.
 * Thread-safe (every method synchronises on the store; none of them does I/O).
 */
public final class HostBlockStore implements BlockStore {

    private final long blockBytes;
    private final Arena arena;
    private final MemorySegment slab;
    /** Hash → slot, in access order: the first entry is the least recently used. */
    private final LinkedHashMap<BlockHash, Integer> slots;
    private final ArrayDeque<Integer> freeSlots = new ArrayDeque<>();

    /**
     * @param capacityBytes bound on the slab, ≥ {@code blockBytes}
     * @param blockBytes    bytes per page, &gt; 0
     */
    public HostBlockStore(long capacityBytes, long blockBytes) {
        if (blockBytes <= 0) {
            throw new IllegalArgumentException("blockBytes must be > 0");
        }
        long count = capacityBytes / blockBytes;
        if (count < 1 || count > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("capacityBytes must hold between 1 and 2^31-1 blocks");
        }
        this.blockBytes = blockBytes;
        this.arena = Arena.ofShared();
        this.slab = arena.allocate(count * blockBytes, Long.BYTES);
        this.slots = new LinkedHashMap<>(16, 0.75f, true);
        for (int slot = 0; slot < count; slot++) {
            freeSlots.add(slot);
        }
    }

    @Override
    public Tier tier() {
        return Tier.G2;
    }

    @Override
    public long blockBytes() {
        return blockBytes;
    }

    @Override
    public synchronized List<BlockHash> put(BlockHash hash, MemorySegment page) {
        Objects.requireNonNull(hash, "hash");
        checkPage(page, blockBytes);
        List<BlockHash> evicted = new ArrayList<>();
        Integer slot = slots.get(hash);
        if (slot == null) {
            if (freeSlots.isEmpty()) {
                Iterator<Map.Entry<BlockHash, Integer>> eldest = slots.entrySet().iterator();
                Map.Entry<BlockHash, Integer> victim = eldest.next();
                eldest.remove();
                evicted.add(victim.getKey());
                freeSlots.add(victim.getValue());
            }
            slot = freeSlots.poll();
            slots.put(hash, slot);
        }
        MemorySegment.copy(page, 0, slab, slot * blockBytes, blockBytes);
        return evicted;
    }

    @Override
    public synchronized ReadResult read(BlockHash hash, MemorySegment target) {
        Integer slot = slots.get(Objects.requireNonNull(hash, "hash"));
        if (slot == null) {
            return ReadResult.MISSING;
        }
        MemorySegment.copy(slab, slot * blockBytes, target, 0, blockBytes);
        return ReadResult.HIT;
    }

    @Override
    public synchronized boolean contains(BlockHash hash) {
        return slots.containsKey(hash);
    }

    @Override
    public synchronized boolean remove(BlockHash hash) {
        Integer slot = slots.remove(hash);
        if (slot == null) {
            return false;
        }
        freeSlots.add(slot);
        return true;
    }

    @Override
    public synchronized long blockCount() {
        return slots.size();
    }

    @Override
    public synchronized void close() {
        slots.clear();
        arena.close();
    }

    static void checkPage(MemorySegment page, long blockBytes) {
        Objects.requireNonNull(page, "page");
        if (page.byteSize() != blockBytes) {
            throw new IllegalArgumentException("page size differs from the store's blockBytes");
        }
    }
}
