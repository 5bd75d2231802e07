package io.squall.functions.worker.kv;

import io.squall.functions.engine.batch.KvPool;
import io.squall.kvgrid.pool.KvLayout;
import io.squall.kvgrid.KvEvent;
import io.squall.kvgrid.WorkerId;
import io.squall.kvgrid.hash.BlockHasher;
import io.squall.kvgrid.metrics.KvStats;
import io.squall.kvgrid.offload.BlockStore;
import io.squall.kvgrid.offload.DiskBlockStore;
import io.squall.kvgrid.offload.HostBlockStore;
import io.squall.kvgrid.offload.OffloadConfig;
import io.squall.kvgrid.offload.OffloadPolicy;
import io.squall.kvgrid.pool.Eviction;
import io.squall.kvgrid.pool.KvEventPublisher;

import com.sun.management.OperatingSystemMXBean;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.LongFunction;

/**
 * The sizes of a worker's KV tiers and how G1 evicts.
 *
 * @param blocks G1 pages (blocks of {@code blockSize} tokens)
 * @param blockSize tokens per block
 * @param hostBytes G2 capacity in bytes of off-heap host memory; 0 for no G2
 * @param diskDir G3 directory, or {@code null} for no G3
 * @param diskBytes G3 capacity in bytes (ignored without a directory)
 * @param eviction the order in which cached blocks leave G1
 */
public record KvConfig(int blocks, int blockSize, long hostBytes, Path diskDir, long diskBytes, Eviction eviction) {

    /** Pages staged between an eviction that finds its block in no lower tier yet and the write there. */
    private static final int STAGING_BUFFERS = 64;

    public KvConfig {
        Objects.requireNonNull(eviction, "eviction");
        if (blocks <= 0 || blockSize <= 0) {
            throw new IllegalArgumentException("KV blocks and block size must be positive");
        }
        if (hostBytes < 0 || diskBytes < 0) {
            throw new IllegalArgumentException("KV tier capacities must not be negative");
        }
    }

    /**
     * The G4 tier: blocks held beyond this worker's own memory and disk.
     *
     * @param store makes the store for a page size in bytes
     * @param receivesEvictions whether this worker's blocks are copied to it too, once committed (the shared grid), or it is
     *     read-only here (other workers' tiers, filled by their own offloads)
     */
    public record G4(LongFunction<BlockStore> store, boolean receivesEvictions) {
        public G4 {
            Objects.requireNonNull(store, "store");
        }

        /** Other workers' G2/G3, read over {@code kv.fetch} ({@link RemoteBlockStore}): never written from here. */
        public static G4 peers(LongFunction<BlockStore> store) {
            return new G4(store, false);
        }

        /** A store every worker writes its evicted blocks to and onboards from (the Hazelcast grid). */
        public static G4 shared(LongFunction<BlockStore> store) {
            return new G4(store, true);
        }
    }

    /** Tiers of these sizes with LRU eviction. */
    public KvConfig(int blocks, int blockSize, long hostBytes, Path diskDir, long diskBytes) {
        this(blocks, blockSize, hostBytes, diskDir, diskBytes, Eviction.LRU);
    }

    /** G1 only, LRU: {@code blocks} blocks of {@link BlockHasher#DEFAULT_BLOCK_SIZE} tokens. */
    public static KvConfig inMemory(int blocks) {
        return new KvConfig(blocks, BlockHasher.DEFAULT_BLOCK_SIZE, 0, null, 0);
    }

    /**
     * Opens the tiers for pages of {@code layout} (whose block size must be this configuration's): G1 always,
     * G2 and G3 when sized. Every committed block is copied down at once to the fastest lower tier; with both
     * G2 and G3, G3 takes what G2 evicts for room.
     *
     * @param events receives each step's KV events on the scheduler thread; must not block
     */
    public KvPool open(KvLayout layout, WorkerId worker, Consumer<List<KvEvent>> events, KvStats stats) {
        return open(layout, BlockHasher.of(blockSize), worker, events, stats, null);
    }

    /**
     * As {@link #open(KvLayout, WorkerId, Consumer, KvStats)}, with blocks named by {@code hasher} (a worker's
     * is salted per model) and a G4 tier: onboards read from it after the local tiers, and committed blocks are
     * copied to it when it {@linkplain G4#receivesEvictions() receives them}.
     *
     * @param g4 the G4 tier, or {@code null} for none
     */
    public KvPool open(KvLayout layout, BlockHasher hasher, WorkerId worker, Consumer<List<KvEvent>> events,
                       KvStats stats, G4 g4) {
        if (layout.blockSize() != blockSize) {
            throw new IllegalArgumentException("pages of " + layout.blockSize() + " tokens do not fit KV blocks of " + blockSize);
        }
        long blockBytes = layout.blockBytes();
        checkFits(memoryBytes(layout), Runtime.getRuntime().maxMemory(), processMemoryLimit());
        List<BlockStore> stores = new ArrayList<>();
        if (hostBytes >= blockBytes) {
            stores.add(new HostBlockStore(hostBytes / blockBytes * blockBytes, blockBytes));
        }
        if (diskDir != null && diskBytes >= blockBytes) {
            stores.add(new DiskBlockStore(diskDir, diskBytes / blockBytes * blockBytes, blockBytes));
        }
        if (g4 != null) {
            stores.add(g4.store().apply(blockBytes));
        }
        OffloadConfig offload = stores.isEmpty() ? null : new OffloadConfig(stores,
                new OffloadPolicy(hostBytes >= blockBytes, hostBytes >= blockBytes ? Integer.MAX_VALUE : 0,
                        g4 != null && g4.receivesEvictions(), true),
                // every block a prompt can have: admission leaves pages for all of them, so bringing back its whole
                // cached prefix takes no page that prefill would not (a limit of 1,024 recomputed all but 16k
                // tokens of the long prefixes in Mooncake's traces)
                STAGING_BUFFERS, blocks);
        return KvPool.create(new KvPool.Spec(layout, blocks, hasher, eviction), offload,
                new KvEventPublisher(worker, events), stats);
    }

    /** The memory G1 and G2 hold once full, in pages of {@code layout} (G3 is on disk). */
    public long memoryBytes(KvLayout layout) {
        long blockBytes = layout.blockBytes();
        return blocks * blockBytes + (hostBytes >= blockBytes ? hostBytes / blockBytes * blockBytes : 0);
    }

    /**
     * Fails when {@code tierBytes} and the JVM's heap do not fit in the memory this process may use. The tiers' pages
     * are zeroed by the OS as they are first written, so a pool too large for its container would start and then be
     * killed once traffic filled it; this makes that a message at start. Other native memory (Netty's buffers,
     * Hazelcast, the JIT's code) comes on top, so passing does not promise the process fits.
     *
     * @param limitBytes the container's memory limit, or the machine's memory outside a container
     */
    static void checkFits(long tierBytes, long heapBytes, long limitBytes) {
        if (tierBytes > limitBytes - heapBytes) {
            throw new IllegalArgumentException("the KV tiers take " + gib(tierBytes) + " once full (G1 and G2) and the "
                    + "JVM heap up to " + gib(heapBytes) + ", more than the " + gib(limitBytes) + " this process may use"
                    + " (its container's memory limit, else the machine's memory): lower --kv-blocks or --kv-host-bytes,"
                    + " or raise the limit");
        }
    }

    /** The container's memory limit, else the machine's memory (the JDK reads the cgroup's limit). */
    private static long processMemoryLimit() {
        return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getTotalMemorySize();
    }

    private static String gib(long bytes) {
        return String.format(Locale.ROOT, "%.2f GiB", bytes / (double) (1L << 30));
    }
}
