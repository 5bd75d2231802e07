package io.squall.functions.worker.kv;

import io.squall.functions.api.KvBlockFrame;
import io.squall.functions.api.KvFetchRequest;
import io.squall.functions.api.KvFetchService;
import io.squall.functions.api.codec.WireFormat;
import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.WorkerId;
import io.squall.kvgrid.grid.BlockLocation;
import io.squall.kvgrid.offload.BlockStore;
import io.squall.kvgrid.offload.ReadResult;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * G4 as seen by one worker: the blocks other workers hold in their G2/G3, read over {@code kv.fetch}.
 * A read looks the hash up in the cluster's block directory ({@code BlockDirectory::locations}), then
 * asks each other worker holding it in a lower tier, in turn, for that one block, until one answers
 * with a frame whose hash, index, size and CRC32C all match; anything else (no frame, an error, a
 * timeout, a torn or corrupt frame) moves on to the next holder and finally reports {@link ReadResult#MISSING}, so the block is recomputed. It never
 * reports {@link ReadResult#DISCARDED}: this store holds no copy it could drop, and a removal event
 * for this worker would be false.
 *
 * <p>Read-only: blocks reach other workers' tiers through their own offloads, so {@link #put} is
 * refused and the {@link io.squall.kvgrid.offload.OffloadPolicy} must not pick G4 next to this store.
 *
 * <p>Threading: thread-safe; {@link #read} and {@link #contains} block on a directory lookup (a
 * Hazelcast call) and {@link #read} on each fetch, bounded by {@code timeout}, which suits the
 * offload manager's own thread and nothing that must not block. Demand: one frame per fetch.
 */
public final class RemoteBlockStore implements BlockStore {

    private static final Logger LOG = LoggerFactory.getLogger(RemoteBlockStore.class);

    private final Function<BlockHash, Set<BlockLocation>> directory;
    private final WorkerId self;
    private final KvPeers peers;
    private final long blockBytes;
    private final Duration timeout;

    /**
     * @param directory where each block lives now, usually {@code BlockDirectory::locations}; may block
     * @param self this worker, never asked
     * @param blockBytes bytes per page, &gt; 0; a frame of another size is refused
     * @param timeout longest wait for one fetch, &gt; 0
     */
    public RemoteBlockStore(Function<BlockHash, Set<BlockLocation>> directory, WorkerId self, KvPeers peers,
                            long blockBytes, Duration timeout) {
        this.directory = Objects.requireNonNull(directory, "directory");
        this.self = Objects.requireNonNull(self, "self");
        this.peers = Objects.requireNonNull(peers, "peers");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        if (blockBytes <= 0 || blockBytes > WireFormat.MAX_BLOCK_BYTES) {
            throw new IllegalArgumentException("blockBytes must be > 0 and fit one wire frame");
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive");
        }
        this.blockBytes = blockBytes;
    }

    @Override
    public Tier tier() {
        return Tier.G4;
    }

    @Override
    public long blockBytes() {
        return blockBytes;
    }

    /** Refused: this tier is filled by other workers' offloads. */
    @Override
    public List<BlockHash> put(BlockHash hash, MemorySegment page) {
        throw new UnsupportedOperationException("the remote tier is read-only; other workers fill it");
    }

    @Override
    public ReadResult read(BlockHash hash, MemorySegment target) {
        Objects.requireNonNull(hash, "hash");
        Objects.requireNonNull(target, "target");
        for (WorkerId holder : holders(hash)) {
            Optional<KvFetchService> peer = peers.peer(holder);
            if (peer.isPresent() && fetch(peer.get(), holder, hash, target)) {
                return ReadResult.HIT;
            }
        }
        return ReadResult.MISSING;
    }

    private boolean fetch(KvFetchService peer, WorkerId holder, BlockHash hash, MemorySegment target) {
        KvBlockFrame frame;
        try {
            frame = peer.fetch(new KvFetchRequest(List.of(hash))).next().timeout(timeout).block();
        } catch (RuntimeException e) {
            LOG.debug("kv.fetch of block {} from worker {} failed: {}", hash, holder, e.toString());
            return false;
        }
        if (frame == null) {
            return false; // the holder dropped the block since the directory was updated
        }
        if (!frame.blockHash().equals(hash) || frame.index() != 0 || frame.payload().length != blockBytes
                || WireFormat.crc32c(frame.payload()) != frame.crc32c()) {
            LOG.warn("worker {} answered kv.fetch of block {} with a mismatching frame"
                    + " (block {}, index {}, {} bytes); ignoring it", holder, hash, frame.blockHash(), frame.index(),
                    frame.payload().length);
            return false;
        }
        MemorySegment.copy(MemorySegment.ofArray(frame.payload()), 0, target, 0, blockBytes);
        return true;
    }

    /** Other workers whose G2 or G3 holds the block, per the directory. */
    private Set<WorkerId> holders(BlockHash hash) {
        Set<WorkerId> holders = new LinkedHashSet<>();
        for (BlockLocation location : directory.apply(hash)) {
            if (!location.worker().equals(self) && (location.tier() == Tier.G2 || location.tier() == Tier.G3)) {
                holders.add(location.worker());
            }
        }
        return holders;
    }

    /** Whether another worker's G2 or G3 holds the block, per the directory (a hint: it may be gone). */
    @Override
    public boolean contains(BlockHash hash) {
        return !holders(Objects.requireNonNull(hash, "hash")).isEmpty();
    }

    /** Drops nothing: the copies belong to other workers. */
    @Override
    public boolean remove(BlockHash hash) {
        Objects.requireNonNull(hash, "hash");
        return false;
    }

    /** Always 0: this store keeps no blocks of its own. */
    @Override
    public long blockCount() {
        return 0;
    }

    /** Nothing to release: the connections belong to the {@link KvPeers}. */
    @Override
    public void close() {
    }
}
