package io.squall.functions.worker.kv;

import io.squall.functions.api.KvBlockFrame;
import io.squall.functions.api.KvFetchRequest;
import io.squall.functions.api.KvFetchService;
import io.squall.functions.api.codec.WireFormat;
import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.offload.OffloadManager;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Objects;

/**
 * Serves {@code kv.fetch} from this worker's own lower tiers (G2 host memory, G3 disk) through
 * {@link OffloadManager#readLocal}. G1 is never read: its pages belong to the scheduler thread, and a
 * block there is offloaded (and so becomes servable) once it is evicted.
 *
 * <p>Demand: one block is read, on a {@code boundedElastic} thread because G3 reads block on disk I/O,
 * per requested frame; nothing is read ahead or buffered beyond the frame being emitted. The stream
 * completes after the last hash or at the first hash no local tier holds. Thread-safe.
 */
public final class LowerTierFetchService implements KvFetchService {

    private final OffloadManager offload;

    public LowerTierFetchService(OffloadManager offload) {
        this.offload = Objects.requireNonNull(offload, "offload");
        if (offload.blockBytes() > WireFormat.MAX_BLOCK_BYTES) {
            throw new IllegalArgumentException("KV pages are larger than one wire frame may carry");
        }
    }

    @Override
    public Flux<KvBlockFrame> fetch(KvFetchRequest request) {
        List<BlockHash> hashes = Objects.requireNonNull(request, "request").hashes();
        return Flux.<KvBlockFrame, Integer>generate(() -> 0, (index, sink) -> {
                    if (index == hashes.size()) {
                        sink.complete();
                        return index;
                    }
                    byte[] page = read(hashes.get(index));
                    if (page == null) {
                        sink.complete();
                    } else {
                        sink.next(new KvBlockFrame(hashes.get(index), index, page, WireFormat.crc32c(page)));
                    }
                    return index + 1;
                })
                .subscribeOn(Schedulers.boundedElastic());
    }

    /** The block's verified page, or {@code null} when no local lower tier holds it. */
    private byte[] read(BlockHash hash) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment target = arena.allocate(offload.blockBytes(), Long.BYTES);
            return offload.readLocal(hash, target) == null ? null : target.toArray(ValueLayout.JAVA_BYTE);
        }
    }
}
