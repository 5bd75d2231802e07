package io.squall.kvgrid.offload;

import io.squall.kvgrid.Tier;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Blocks of a prompt being copied from lower tiers straight into G1 pages its sequence already holds
 * ({@link OffloadManager#onboard}). Two kinds:
 *
 * <ul>
 *   <li><b>streamed</b> — every block is in host memory (G2, or staged on its way down) and pinned there,
 *       so the count is known at once ({@link #streamedBlocks()}) and cannot shrink: the pages are filled
 *       a layer at a time across all blocks, and the sequence may compute the tokens after them right away,
 *       waiting in each layer's attention for that layer ({@link #awaitLayer});</li>
 *   <li><b>read</b> — some block may come from disk or another worker: whole blocks are read and verified
 *       in prefix order until the first one no tier yields; the count is known when {@link #done()}
 *       completes, and the sequence waits for it.</li>
 * </ul>
 *
 * <p>{@link #done()} completes, on a lane thread, with how many leading pages hold verified blocks; only
 * those may be committed. {@link #close()} stops the copying: once it returns no write into the pages is in
 * progress or will follow, so the caller may free them.
 *
 * <p>Thread-safe.
 */
public final class OnboardTransfer implements AutoCloseable {

    private final List<MemorySegment> pages;
    private final Tier[] sources;
    private final int streamed;
    private final int layers;
    private final CompletableFuture<Integer> done = new CompletableFuture<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition layerArrived = lock.newCondition();
    /** Guarded by {@link #lock}. */
    private boolean closed;
    /** Layers copied into every streamed page; guarded by {@link #lock}. */
    private int layersReady;

    /**
     * @param pages    the G1 pages to fill, in prompt order
     * @param streamed the fixed count of a streamed transfer, or -1 for a read one
     * @param layers   the layer count of a page
     */
    OnboardTransfer(List<MemorySegment> pages, int streamed, int layers) {
        this.pages = List.copyOf(pages);
        this.sources = new Tier[this.pages.size()];
        this.streamed = streamed;
        this.layers = layers;
    }

    /** An onboard that found nothing below G1. */
    static OnboardTransfer none() {
        OnboardTransfer transfer = new OnboardTransfer(List.of(), -1, 1);
        transfer.complete(0);
        return transfer;
    }

    /** For a streamed transfer, the blocks it fills; -1 for a read one (whose count {@link #done()} gives). */
    public int streamedBlocks() {
        return streamed;
    }

    public boolean isStreamed() {
        return streamed >= 0;
    }

    /** Completes with the number of leading pages filled with verified blocks (all of a streamed one, unless closed). */
    public CompletableFuture<Integer> done() {
        return done;
    }

    /** The tier each filled page came from; complete once {@link #done()} is. */
    public List<Tier> sources() {
        int filled = done.getNow(0);
        return new ArrayList<>(Arrays.asList(sources).subList(0, filled));
    }

    /**
     * Waits until layer {@code layer} of every page of a streamed transfer is in place (or the transfer
     * ended); returns at once for a read transfer, which is never computed against before it is done.
     */
    public void awaitLayer(int layer) {
        if (!isStreamed()) {
            return;
        }
        lock.lock();
        try {
            while (layersReady <= layer && !closed && !done.isDone()) {
                layerArrived.awaitUninterruptibly();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Stops the transfer; after it returns, no write into the pages is in progress or follows. Idempotent. */
    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            layerArrived.signalAll();
        } finally {
            lock.unlock();
        }
        done.complete(0);
    }

    // ---- used by the lanes ----

    int pageCount() {
        return pages.size();
    }

    int layers() {
        return layers;
    }

    void source(int index, Tier tier) {
        sources[index] = tier;
    }

    /**
     * Copies {@code length} bytes from {@code source} into page {@code index} at {@code offset}, unless closed.
     *
     * @return false when the transfer was closed (nothing copied)
     */
    boolean copy(MemorySegment source, long sourceOffset, int index, long offset, long length) {
        lock.lock();
        try {
            if (closed) {
                return false;
            }
            MemorySegment.copy(source, sourceOffset, pages.get(index), offset, length);
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Marks one more layer of every streamed page as in place. */
    void layerDone() {
        lock.lock();
        try {
            layersReady++;
            layerArrived.signalAll();
        } finally {
            lock.unlock();
        }
    }

    boolean isClosed() {
        lock.lock();
        try {
            return closed;
        } finally {
            lock.unlock();
        }
    }

    void complete(int filled) {
        lock.lock();
        try {
            layersReady = layers;
            layerArrived.signalAll();
        } finally {
            lock.unlock();
        }
        done.complete(filled);
    }
}
