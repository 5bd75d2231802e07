package io.squall.cli;

import io.squall.functions.discovery.hazelcast.ClusterMember;
import io.squall.functions.engine.batch.BatchConfig;
import io.squall.functions.worker.disagg.DisaggregationConfig;
import io.squall.functions.worker.kv.KvConfig;
import io.squall.kvgrid.hash.BlockHasher;
import io.squall.kvgrid.pool.Eviction;
import io.squall.scheduler.profile.Profile;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.time.Duration;

/**
 * How each worker runs: the batch limits ({@code --max-sequences}, {@code --context}) and the
 * {@code --kv-*} options sizing its KV tiers G1, G2 and G3, and the disaggregation knobs of decode
 * workers. Shared by {@code squall serve} and
 * {@code squall worker}.
 */
final class WorkerOptions {

    private static final int DEFAULT_MAX_SEQUENCES = BatchConfig.DEFAULT_MAX_RUNNING_SEQUENCES;
    private static final int DEFAULT_MAX_BATCHED_TOKENS = BatchConfig.DEFAULT_MAX_BATCHED_TOKENS;
    private static final int DEFAULT_CONTEXT = 4096;
    private static final int DEFAULT_BLOCKS = 4096;

    @Option(names = "--max-sequences", description = "sequences batched at once per worker (default: "
            + DEFAULT_MAX_SEQUENCES + ", or a mock engine's profile's)")
    Integer maxSequences;

    @Option(names = "--max-batched-tokens", description = "tokens per forward pass, decode rows and prompt chunks "
            + "together (default: " + DEFAULT_MAX_BATCHED_TOKENS + ", or a mock engine's profile's)")
    Integer maxBatchedTokens;

    @Option(names = "--context", description = "longest sequence in tokens (default: " + DEFAULT_CONTEXT
            + ", or a mock engine's profile's)")
    Integer context;

    @Option(names = "--kv-blocks", description = "G1 KV blocks per worker (default: " + DEFAULT_BLOCKS
            + ", or what a mock engine's profile's KV capacity holds)")
    Integer blocks;

    @Option(names = "--kv-block-size", description = "tokens per KV block; workers advertise it and routers hash "
            + "prompts by it (default: " + BlockHasher.DEFAULT_BLOCK_SIZE + ", or a mock engine's profile's)")
    Integer blockSize;

    @Option(names = "--kv-eviction", defaultValue = "lru", converter = EvictionName.class,
            description = "how cached G1 blocks are evicted: lru, or tinylfu (a one-off prefix cannot push out a frequent one) (default: ${DEFAULT-VALUE})")
    Eviction eviction;

    /** Reads {@code --kv-eviction}. */
    static final class EvictionName extends ParsingConverter<Eviction> {
        EvictionName() {
            super(Eviction::parse);
        }
    }

    @Option(names = "--kv-host-bytes", defaultValue = "0", description = "G2 off-heap host memory for evicted blocks, in bytes (default: none)")
    long hostBytes;

    @Option(names = "--kv-disk-dir", description = "G3 directory for evicted blocks (default: none)")
    Path diskDir;

    @Option(names = "--kv-disk-bytes", defaultValue = "0", description = "G3 capacity in bytes")
    long diskBytes;

    @Option(names = "--kv-g4", defaultValue = "peers", converter = G4Name.class,
            description = "G4, beyond the worker's own memory and disk: peers (other workers' G2/G3, fetched over kv.fetch) "
                    + "or grid (the Hazelcast grid: every worker copies its committed blocks there and onboards from it) "
                    + "or none (a worker reuses only blocks it computed itself) (default: ${DEFAULT-VALUE})")
    G4 g4;

    @Option(names = "--kv-grid-blocks", defaultValue = "" + ClusterMember.DEFAULT_G4_BLOCKS_PER_MEMBER,
            description = "with --kv-g4 grid: the most G4 blocks this process's cluster member holds; each costs a KV "
                    + "page of heap (default: ${DEFAULT-VALUE})")
    int gridBlocks;

    /** The G4 tier's choices. */
    enum G4 {
        PEERS, GRID, NONE;

        static G4 parse(String value) {
            return switch (value) {
                case "peers" -> PEERS;
                case "grid" -> GRID;
                case "none" -> NONE;
                default -> throw new IllegalArgumentException("--kv-g4 must be peers, grid or none, got " + value);
            };
        }
    }

    /** Reads {@code --kv-g4}. */
    static final class G4Name extends ParsingConverter<G4> {
        G4Name() {
            super(G4::parse);
        }
    }

    @Option(names = "--disagg-min-tokens", defaultValue = "512",
            description = "decode workers prefill remotely only prompts with more uncached tokens than this (default: ${DEFAULT-VALUE})")
    int disaggMinTokens;

    @Option(names = "--prefill-max-queue", defaultValue = "4",
            description = "decode workers use only prefill workers with at most this many waiting sequences (default: ${DEFAULT-VALUE})")
    int prefillMaxQueue;

    @Option(names = "--prefill-timeout-seconds", defaultValue = "60",
            description = "longest wait for a remote prefill before prefilling locally (default: ${DEFAULT-VALUE})")
    int prefillTimeoutSeconds;

    /**
     * Takes what was not given on the command line from {@code profile}'s worker, so a mock worker holds what the
     * profiled one held; nothing when {@code profile} is null.
     */
    void defaultsFrom(Profile profile) {
        if (profile == null) {
            return;
        }
        Profile.WorkerShape shape = profile.worker();
        blockSize = blockSize != null ? blockSize : shape.blockSize();
        maxSequences = maxSequences != null ? maxSequences : shape.maxSequences();
        maxBatchedTokens = maxBatchedTokens != null ? maxBatchedTokens : shape.maxBatchedTokens();
        context = context != null ? context : shape.contextLength();
        blocks = blocks != null ? blocks : (int) Math.min(Integer.MAX_VALUE, shape.kvCapacityTokens() / blockSize());
    }

    /** The longest sequence, in tokens. */
    int context() {
        return context != null ? context : DEFAULT_CONTEXT;
    }

    /** Tokens per KV block. */
    int blockSize() {
        return blockSize != null ? blockSize : BlockHasher.DEFAULT_BLOCK_SIZE;
    }

    /** G1 blocks per worker. */
    int blocks() {
        return blocks != null ? blocks : DEFAULT_BLOCKS;
    }

    /**
     * These options as {@code squall worker} takes them, for worker processes started by a planner, but for the
     * G3 directory, which each process needs of its own ({@link #diskDir}).
     */
    List<String> asArguments() {
        List<String> args = new ArrayList<>(List.of("--max-sequences", Integer.toString(batch().maxRunningSequences()),
                "--max-batched-tokens", Integer.toString(batch().maxBatchedTokens()),
                "--context", Integer.toString(context()), "--kv-blocks", Integer.toString(blocks()),
                "--kv-block-size", Integer.toString(blockSize()), "--kv-eviction", eviction.toString(),
                "--kv-g4", g4.name().toLowerCase(Locale.ROOT), "--kv-grid-blocks", Integer.toString(gridBlocks),
                "--kv-host-bytes", Long.toString(hostBytes), "--kv-disk-bytes", Long.toString(diskBytes),
                "--disagg-min-tokens", Integer.toString(disaggMinTokens),
                "--prefill-max-queue", Integer.toString(prefillMaxQueue),
                "--prefill-timeout-seconds", Integer.toString(prefillTimeoutSeconds)));
        return args;
    }

    /** The batching limits: {@code --max-sequences}, the other limits at their defaults. */
    BatchConfig batch() {
        BatchConfig defaults = BatchConfig.defaults();
        return new BatchConfig(maxSequences != null ? maxSequences : DEFAULT_MAX_SEQUENCES,
                maxBatchedTokens != null ? maxBatchedTokens : DEFAULT_MAX_BATCHED_TOKENS, defaults.chunkedPrefill(),
                defaults.maxWaitingSequences(), defaults.prefixCaching());
    }

    /** When a decode worker hands prompts to prefill workers. */
    DisaggregationConfig disaggregation() {
        return new DisaggregationConfig(disaggMinTokens, prefillMaxQueue, Duration.ofSeconds(prefillTimeoutSeconds));
    }

    /** The tiers of a worker; {@code subdirectory} separates the disk tiers of several workers in one process. */
    KvConfig kv(String subdirectory) {
        Path dir = diskDir == null || subdirectory == null ? diskDir : diskDir.resolve(subdirectory);
        return new KvConfig(blocks(), blockSize(), hostBytes, dir, diskBytes, eviction);
    }

    KvConfig kv() {
        return kv(null);
    }
}
