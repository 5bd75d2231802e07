package io.squall.kvgrid.offload;

import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.metrics.KvStats;
import io.squall.kvgrid.pool.KvEventPublisher;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The offload manager's read side: two threads of their own, so an onboard never waits behind the write
 * lane. The <em>memory</em> lane runs streamed transfers (pinned host pages copied a layer at a time, a
 * memcpy per layer and block), the <em>storage</em> lane runs read transfers (disk files and other
 * workers' tiers, whole verified blocks); a slow disk or network read therefore never delays a streamed
 * transfer that a forward pass may be waiting on.
 *
 * <p>Thread-safe; each transfer runs on one lane thread, in submission order per lane.
 */
final class OnboardLanes implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(OnboardLanes.class);

    private final KvEventPublisher events;
    private final KvStats stats;
    private final Residency residency;
    private final long blockBytes;
    private final int blockTokens;
    private final ExecutorService memory = Executors.newSingleThreadExecutor(
            Thread.ofPlatform().name("squall-kv-onboard-memory").daemon().factory());
    private final ExecutorService storage = Executors.newSingleThreadExecutor(
            Thread.ofPlatform().name("squall-kv-onboard-storage").daemon().factory());
    private final Arena arena = Arena.ofShared();
    /** The storage lane's read buffer: a block is read and verified here, then copied into its page. */
    private final MemorySegment readBuffer;

    OnboardLanes(long blockBytes, int blockTokens, KvEventPublisher events, KvStats stats, Residency residency) {
        this.blockBytes = blockBytes;
        this.blockTokens = blockTokens;
        this.events = events;
        this.stats = stats;
        this.residency = residency;
        this.readBuffer = arena.allocate(blockBytes, Long.BYTES);
    }

    /** A block pinned in host memory and the transfer's page it goes to. */
    record Pinned(int page, PinnedBlock block) {
    }

    /**
     * Fills the pinned pages of a streamed transfer a layer at a time, then completes it with all its pages;
     * its other pages are already filled. Unpins every block whatever happens.
     */
    void stream(OnboardTransfer transfer, List<Pinned> pins) {
        run(memory, transfer, pins, () -> {
            long layerBytes = blockBytes / transfer.layers();
            for (int layer = 0; layer < transfer.layers(); layer++) {
                long offset = layer * layerBytes;
                for (Pinned pin : pins) {
                    if (!transfer.copy(pin.block().page(), offset, pin.page(), offset, layerBytes)) {
                        return;
                    }
                }
                transfer.layerDone();
            }
            finish(transfer, transfer.streamedBlocks());
        });
    }

    /**
     * Fills the pages of a read transfer: the pinned ones with whole blocks (pages before {@code firstSlow}
     * not pinned are filled already), then pages from {@code firstSlow} on with blocks read from
     * {@code stores} (each from the fastest holding it), in order, until one is found nowhere.
     *
     * @param hashes the hash of every page of the transfer
     */
    void read(OnboardTransfer transfer, List<Pinned> pins, int firstSlow, List<BlockHash> hashes, List<BlockStore> stores) {
        run(storage, transfer, pins, () -> {
            for (Pinned pin : pins) {
                if (!transfer.copy(pin.block().page(), 0, pin.page(), 0, blockBytes)) {
                    return;
                }
            }
            int filled = firstSlow;
            for (; filled < transfer.pageCount() && !transfer.isClosed(); filled++) {
                Tier tier = readAny(hashes.get(filled), stores);
                if (tier == null || !transfer.copy(readBuffer, 0, filled, 0, blockBytes)) {
                    break;
                }
                transfer.source(filled, tier);
            }
            finish(transfer, filled);
        });
    }

    private void run(ExecutorService lane, OnboardTransfer transfer, List<Pinned> pins, Runnable copies) {
        try {
            lane.execute(() -> {
                try {
                    copies.run();
                } catch (RuntimeException e) {
                    LOG.warn("onboard failed; its blocks will be recomputed", e);
                } finally {
                    pins.forEach(pin -> pin.block().close());
                    transfer.close(); // a no-op after finish: releases waiters if the copies stopped early
                }
            });
        } catch (RejectedExecutionException shutDown) {
            pins.forEach(pin -> pin.block().close());
            transfer.close();
        }
    }

    /** Reads a block into the lane's buffer from the first store that yields verified bytes. */
    private Tier readAny(BlockHash hash, List<BlockStore> stores) {
        for (BlockStore store : stores) {
            ReadResult result = store.read(hash, readBuffer);
            if (result == ReadResult.HIT) {
                return store.tier();
            }
            if (result == ReadResult.DISCARDED) {
                discarded(hash, store);
            }
        }
        return null;
    }

    /** Records that {@code store} dropped a copy of {@code hash} that failed verification. */
    void discarded(BlockHash hash, BlockStore store) {
        residency.removed(hash, store.tier());
        events.removed(List.of(hash), store.tier());
        stats.discarded(store.tier(), 1);
        stats.blocks(store.tier(), store.blockCount());
    }

    /** Completes the transfer with {@code filled} pages and records them as onboarded, by source tier. */
    private void finish(OnboardTransfer transfer, int filled) {
        if (transfer.isClosed()) {
            return;
        }
        transfer.complete(filled);
        Map<Tier, Integer> bySource = new EnumMap<>(Tier.class);
        transfer.sources().forEach(tier -> bySource.merge(tier, 1, Integer::sum));
        bySource.forEach((tier, blocks) -> {
            stats.onboarded(tier, Tier.G1, blocks);
            stats.prefixMatched(tier, (long) blocks * blockTokens);
        });
    }

    /** Lets queued transfers finish (at most {@code 30 s}), then frees the read buffer. */
    @Override
    public void close() {
        memory.shutdown();
        storage.shutdown();
        try {
            if (!memory.awaitTermination(30, TimeUnit.SECONDS) | !storage.awaitTermination(30, TimeUnit.SECONDS)) {
                LOG.warn("onboard lanes did not finish within 30 s; abandoning them");
                memory.shutdownNow();
                storage.shutdownNow();
                return;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        arena.close();
    }
}
