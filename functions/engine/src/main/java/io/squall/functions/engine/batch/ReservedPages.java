package io.squall.functions.engine.batch;

import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.pool.BlockPool;

import java.lang.foreign.MemorySegment;
import java.util.BitSet;
import java.util.List;
import java.util.Objects;

/**
 * The scheduler's {@link PrefillTarget}: writes go straight into the pool's shared page memory, under
 * this object's lock, which {@link #close} also takes; so once the scheduler has closed it (before it
 * frees or reads the pages) no write is in flight and none follows.
 */
final class ReservedPages implements PrefillTarget {

    private final GenerationRequest request;
    private final int firstBlock;
    private final int[] blockIds;
    private final List<BlockHash> hashes;
    private final MemorySegment memory;
    private final long blockBytes;
    private final BitSet written = new BitSet();
    private boolean closed;

    ReservedPages(GenerationRequest request, int firstBlock, int[] blockIds, List<BlockHash> hashes,
                  BlockPool pool) {
        if (blockIds.length != hashes.size() || blockIds.length == 0) {
            throw new IllegalArgumentException("one hash per reserved page, at least one page");
        }
        this.request = request;
        this.firstBlock = firstBlock;
        this.blockIds = blockIds.clone();
        this.hashes = List.copyOf(hashes);
        this.memory = pool.memory();
        this.blockBytes = pool.layout().blockBytes();
    }

    @Override
    public GenerationRequest request() {
        return request;
    }

    @Override
    public int firstBlock() {
        return firstBlock;
    }

    @Override
    public int[] blockIds() {
        return blockIds.clone();
    }

    @Override
    public synchronized boolean write(int index, BlockHash hash, byte[] payload) {
        Objects.requireNonNull(hash, "hash");
        Objects.requireNonNull(payload, "payload");
        int slot = index - firstBlock;
        if (slot < 0 || slot >= blockIds.length) {
            throw new IllegalArgumentException("block " + index + " is not reserved (reserved: " + firstBlock + ".."
                    + (firstBlock + blockIds.length - 1) + ")");
        }
        if (!hashes.get(slot).equals(hash)) {
            throw new IllegalArgumentException("block " + index + " has hash " + hash + ", expected " + hashes.get(slot));
        }
        if (payload.length != blockBytes) {
            throw new IllegalArgumentException("block " + index + " has " + payload.length + " bytes, a page has " + blockBytes);
        }
        if (closed) {
            return false;
        }
        MemorySegment.copy(MemorySegment.ofArray(payload), 0, memory, blockIds[slot] * blockBytes, blockBytes);
        written.set(slot);
        return true;
    }

    /** Refuses writes from now on; returns whether every page was written. */
    synchronized boolean close() {
        closed = true;
        return written.cardinality() == blockIds.length;
    }
}
