package io.squall.kvgrid.offload;

import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.pool.ZeroedMemory;
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
 * least recently used unpinned block when full. Host memory is trusted, so pages carry no checksum.
 *
 * <p>Blocks can be {@linkplain #pin pinned}: lent in place (an onboard copies them straight into G1 pages,
 * a layer at a time) and meanwhile never evicted, moved or overwritten — a {@link #put} of a pinned
 * block's hash only marks it used (equal hashes mean equal contents), a {@link #remove} takes effect at
 * the unpin. A put finding every slot pinned fails with {@link IllegalStateException}.
 *
 * <p>Thread-safe: every method synchronises on the store and none does I/O; the longest hold is one
 * page's memcpy.
 */
public final class HostBlockStore implements BlockStore {

    private final long blockBytes;
    private final Arena arena;
    private final MemorySegment slab;
    /** Hash → slot, in access order: the first entry is the least recently used. */
    private final LinkedHashMap<BlockHash, Slot> slots;
    private final ArrayDeque<Integer> freeSlots = new ArrayDeque<>();

    /** One page of the slab: its index and how many pins hold it. Guarded by the store. */
    private static final class Slot {
        final int index;
        int pins;
        /** Removed while pinned: freed at the last unpin. */
        boolean removed;

        Slot(int index) {
            this.index = index;
        }
    }

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
        this.slab = ZeroedMemory.allocate(arena, count * blockBytes);
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
    public List<BlockHash> put(BlockHash hash, MemorySegment page) {
        return put(hash, page, Spill.NONE);
    }

    @Override
    public synchronized List<BlockHash> put(BlockHash hash, MemorySegment page, Spill spill) {
        Objects.requireNonNull(hash, "hash");
        Objects.requireNonNull(spill, "spill");
        checkPage(page, blockBytes);
        List<BlockHash> evicted = new ArrayList<>();
        Slot slot = slots.get(hash);
        if (slot != null && slot.pins > 0) {
            return evicted; // lent in place: keeps its (equal) bytes, now marked used
        }
        if (slot == null) {
            if (freeSlots.isEmpty()) {
                evicted.add(evictUnpinned(spill));
            }
            slot = new Slot(freeSlots.poll());
            slots.put(hash, slot);
        }
        MemorySegment.copy(page, 0, slab, slot.index * blockBytes, blockBytes);
        return evicted;
    }

    private BlockHash evictUnpinned(Spill spill) {
        for (Iterator<Map.Entry<BlockHash, Slot>> eldest = slots.entrySet().iterator(); eldest.hasNext(); ) {
            Map.Entry<BlockHash, Slot> victim = eldest.next();
            if (victim.getValue().pins == 0) {
                spill.evicted(victim.getKey(), slab.asSlice(victim.getValue().index * blockBytes, blockBytes));
                eldest.remove();
                freeSlots.add(victim.getValue().index);
                return victim.getKey();
            }
        }
        throw new IllegalStateException("every host tier slot is pinned by an onboard");
    }

    @Override
    public synchronized ReadResult read(BlockHash hash, MemorySegment target) {
        Slot slot = slots.get(Objects.requireNonNull(hash, "hash"));
        if (slot == null) {
            return ReadResult.MISSING;
        }
        MemorySegment.copy(slab, slot.index * blockBytes, target, 0, blockBytes);
        return ReadResult.HIT;
    }

    @Override
    public synchronized PinnedBlock pin(BlockHash hash) {
        Slot slot = slots.get(Objects.requireNonNull(hash, "hash"));
        if (slot == null) {
            return null;
        }
        slot.pins++;
        return new Pin(hash, slot, slab.asSlice(slot.index * blockBytes, blockBytes));
    }

    private synchronized void unpin(Slot slot) {
        if (--slot.pins == 0 && slot.removed) {
            freeSlots.add(slot.index);
        }
    }

    /** A pinned slot; closing it more than once is a no-op. */
    private final class Pin implements PinnedBlock {
        private final BlockHash hash;
        private final Slot slot;
        private final MemorySegment page;
        private boolean closed;

        Pin(BlockHash hash, Slot slot, MemorySegment page) {
            this.hash = hash;
            this.slot = slot;
            this.page = page;
        }

        @Override
        public BlockHash hash() {
            return hash;
        }

        @Override
        public Tier tier() {
            return Tier.G2;
        }

        @Override
        public MemorySegment page() {
            return page;
        }

        @Override
        public void close() {
            synchronized (HostBlockStore.this) {
                if (!closed) {
                    closed = true;
                    unpin(slot);
                }
            }
        }
    }

    @Override
    public synchronized boolean contains(BlockHash hash) {
        return slots.containsKey(hash);
    }

    @Override
    public synchronized boolean touch(BlockHash hash) {
        return slots.get(Objects.requireNonNull(hash, "hash")) != null;
    }

    @Override
    public synchronized boolean remove(BlockHash hash) {
        Slot slot = slots.remove(hash);
        if (slot == null) {
            return false;
        }
        if (slot.pins > 0) {
            slot.removed = true;
        } else {
            freeSlots.add(slot.index);
        }
        return true;
    }

    @Override
    public synchronized long blockCount() {
        return slots.size();
    }

    /** Frees the slab; pages of pins still open must not be read afterwards. */
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
