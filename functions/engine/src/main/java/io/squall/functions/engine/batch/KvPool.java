package io.squall.functions.engine.batch;

import io.squall.kvgrid.hash.BlockHasher;
import io.squall.kvgrid.metrics.KvStats;
import io.squall.kvgrid.offload.OffloadConfig;
import io.squall.kvgrid.offload.OffloadManager;
import io.squall.kvgrid.pool.BlockPool;
import io.squall.kvgrid.pool.BlockPoolConfig;
import io.squall.kvgrid.pool.Eviction;
import io.squall.kvgrid.pool.EvictionSink;
import io.squall.kvgrid.pool.KvEventPublisher;
import io.squall.kvgrid.pool.KvLayout;

import java.util.Objects;

/**
 * The KV storage a {@link BatchScheduler} runs on: the G1 page pool, the hasher that names full blocks,
 * the optional lower tiers that evicted blocks are offloaded to and onboarded from, and the publisher
 * of KV events. The pool and publisher are driven by the scheduler thread; the offload manager has its
 * own thread.
 *
 * @param pool G1 pages for every running sequence
 * @param hasher block hashing, with the pool's block size
 * @param offload lower tiers, or {@code null} for none
 * @param events where block presence changes are recorded; flushed after every step
 */
public record KvPool(BlockPool pool, BlockHasher hasher, OffloadManager offload, KvEventPublisher events)
        implements AutoCloseable {

    public KvPool {
        Objects.requireNonNull(pool, "pool");
        Objects.requireNonNull(hasher, "hasher");
        Objects.requireNonNull(events, "events");
        if (hasher.blockSize() != pool.layout().blockSize()) {
            throw new IllegalArgumentException("hasher and pool disagree on the block size");
        }
    }

    /**
     * What a pool is made of.
     *
     * @param layout the page of one block
     * @param blocks G1 pages
     * @param hasher names full blocks; its block size is the layout's (a worker salts it per model)
     * @param eviction the order in which cached blocks leave G1
     */
    public record Spec(KvLayout layout, int blocks, BlockHasher hasher, Eviction eviction) {
        public Spec {
            Objects.requireNonNull(layout, "layout");
            Objects.requireNonNull(hasher, "hasher");
            Objects.requireNonNull(eviction, "eviction");
            if (hasher.blockSize() != layout.blockSize()) {
                throw new IllegalArgumentException("blocks of " + hasher.blockSize() + " tokens cannot name pages of "
                        + layout.blockSize());
            }
        }
    }

    /**
     * A pool of {@code blocks} pages of {@code layout} with unsalted hashes, LRU eviction and, when {@code offload}
     * is given, lower tiers.
     *
     * @param offload the lower tiers' configuration, or {@code null} for G1 only
     */
    public static KvPool create(KvLayout layout, int blocks, OffloadConfig offload, KvEventPublisher events,
                                KvStats stats) {
        return create(new Spec(layout, blocks, BlockHasher.of(layout.blockSize()), Eviction.LRU), offload, events, stats);
    }

    /** A pool as {@code spec} says and, when {@code offload} is given, lower tiers. */
    public static KvPool create(Spec spec, OffloadConfig offload, KvEventPublisher events, KvStats stats) {
        OffloadManager manager = offload == null ? null
                : new OffloadManager(offload, events, stats, spec.layout().blockSize());
        EvictionSink sink = manager == null ? EvictionSink.DISCARD : manager;
        BlockPool pool = new BlockPool(new BlockPoolConfig(spec.layout(), spec.blocks()),
                spec.eviction().policy(spec.blocks()), events, sink, stats);
        return new KvPool(pool, spec.hasher(), manager, events);
    }

    /** Stops the offload thread (finishing queued copies) and frees the pages. */
    @Override
    public void close() {
        if (offload != null) {
            offload.close();
        }
        pool.close();
    }
}
