package io.squall.kvgrid.offload;

import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.pool.EvictedBlock;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Host-memory pages holding copies on their way down the tiers, and the index of those copies by hash, so
 * an onboard finds a block whose write has not landed yet ({@link #copyOut}). A buffer is
 * {@linkplain #take taken}, filled, {@linkplain #publish published}, written to its tiers by the write lane
 * and then {@linkplain #retire retired}; retiring waits for an onboard copying out of it.
 *
 * <p>Thread-safe. The memory is freed by {@link #close()}, after every user is done.
 */
final class StagingArea implements AutoCloseable {

    /** A published copy; its {@code retired} flag is guarded by the object itself. */
    static final class Staged {
        final EvictedBlock contents;
        final MemorySegment bytes;
        /** The tier the copy is going to first (reported as an onboard's source). */
        final Tier tier;
        private boolean retired;

        Staged(EvictedBlock contents, MemorySegment bytes, Tier tier) {
            this.contents = contents;
            this.bytes = bytes;
            this.tier = tier;
        }
    }

    private final long blockBytes;
    private final Arena arena = Arena.ofShared();
    private final BlockingQueue<MemorySegment> free;
    private final ConcurrentHashMap<BlockHash, Staged> published = new ConcurrentHashMap<>();
    /** Buffers handed back so far: a waiter that timed out can tell whether any came back since. */
    private final AtomicLong returned = new AtomicLong();

    StagingArea(int buffers, long blockBytes) {
        this.blockBytes = blockBytes;
        MemorySegment slab = arena.allocate(blockBytes * buffers, Long.BYTES);
        this.free = new ArrayBlockingQueue<>(buffers);
        for (int i = 0; i < buffers; i++) {
            free.add(slab.asSlice(i * blockBytes, blockBytes));
        }
    }

    /** A free buffer, waiting up to {@code nanos} for one; {@code null} if none came. */
    MemorySegment take(long nanos) throws InterruptedException {
        MemorySegment buffer = free.poll();
        return buffer != null || nanos <= 0 ? buffer : free.poll(nanos, TimeUnit.NANOSECONDS);
    }

    /** Returns a buffer that was never published. */
    void giveBack(MemorySegment buffer) {
        free.add(buffer);
        returned.incrementAndGet();
    }

    /** How many buffers have been handed back so far (ever growing). */
    long returned() {
        return returned.get();
    }

    /** Makes a filled buffer findable by its block's hash until {@link #retire}. */
    Staged publish(EvictedBlock contents, MemorySegment bytes, Tier tier) {
        Staged staged = new Staged(contents, bytes, tier);
        published.put(contents.block().hash(), staged);
        return staged;
    }

    /**
     * Unpublishes the copy once its writes are done and frees its buffer (if it came from this area);
     * returns after any onboard copying out of it has finished.
     *
     * @param pooled whether the buffer was {@linkplain #take taken} from this area
     */
    void retire(Staged staged, boolean pooled) {
        published.remove(staged.contents.block().hash(), staged);
        synchronized (staged) {
            staged.retired = true;
        }
        if (pooled) {
            giveBack(staged.bytes);
        }
    }

    /** Whether a copy of {@code hash} is on its way down. */
    boolean holds(BlockHash hash) {
        return published.containsKey(hash);
    }

    /** The tier a staged copy of {@code hash} is going to, or {@code null} when none is staged. */
    Tier tierOf(BlockHash hash) {
        Staged staged = published.get(hash);
        return staged == null ? null : staged.tier;
    }

    /**
     * Copies a block on its way down into {@code target}, if there is one.
     *
     * @return the tier the copy was going to, or {@code null} when no copy of {@code hash} is staged
     */
    Tier copyOut(BlockHash hash, MemorySegment target) {
        Staged staged = published.get(hash);
        if (staged == null) {
            return null;
        }
        synchronized (staged) {
            if (staged.retired) {
                return null; // its writes landed: the tiers have it
            }
            MemorySegment.copy(staged.bytes, 0, target, 0, blockBytes);
            return staged.tier;
        }
    }

    @Override
    public void close() {
        arena.close();
    }
}
