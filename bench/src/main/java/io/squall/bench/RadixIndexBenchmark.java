package io.squall.bench;

import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.KvEvent;
import io.squall.kvgrid.LocalBlockHash;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.WorkerId;
import io.squall.kvgrid.index.OverlapScores;
import io.squall.kvgrid.index.flat.FlatRadixIndex;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The router's radix index at cluster scale: {@code workers} workers each holding {@code
 * blocksPerWorker} blocks, made of 256-block sequences (4k-token prompts at 16 tokens per block,
 * stored as 16-block events) that start with one of 32 shared system prompts of 8–64 blocks, so
 * workers overlap as in production. 64 × 100k blocks is a node table of about 1 GB, far beyond cache.
 *
 * <ul>
 *   <li>{@code applyEvents}: steady-state churn over the whole working set. A churn unit is one
 *       worker's run of {@code blocksPerEvent} consecutive blocks past its system prompt, drawn at
 *       random from every stored sequence (up to {@link Churn#MAX_UNITS} units). Operations
 *       alternate: remove the next unit in a shuffled order, then store back the unit removed
 *       {@link Churn#WINDOW} pairs earlier, so the index stays full. One operation is one event:
 *       throughput = events/s; blocks/s = events/s × {@code blocksPerEvent}. Each event is built
 *       per operation from primitive arrays, as a deserialiser builds it from the wire: the record,
 *       its block list and its hashes are fresh objects. (Until 2026-11 the block lists were built
 *       in setup; scattered through the old generation, they cost the benchmark two or three cache
 *       misses per event that a router never pays.)
 *   <li>{@code applyEventsGrouped}: the same churn, applied as {@code KvIndexer} applies a drained
 *       batch: groups of 8 events, each group prefetched before it is applied.
 *   <li>{@code findMatches}: lookup latency of a 256-block prompt that a random worker holds fully
 *       (every worker shares its system prompt); {@code Mode.SampleTime} gives percentiles.
 * </ul>
 *
 * The workload is drawn from a fixed seed so runs are comparable.
 */
/*
 * -XX:+UseTransparentHugePages is the router's deployment flag (docs/BENCHMARKS.md, "Radix index"):
 * the JVM asks for 2 MB pages for its heap (madvise), which cuts the TLB misses of the node table's
 * random probes. It needs the kernel's THP mode to be "madvise" or "always"; otherwise it does
 * nothing. Pass -jvmArgsAppend "-Xms6g -Xmx6g" to measure without it.
 */
@Fork(value = 1, jvmArgsAppend = {"-Xms6g", "-Xmx6g", "-XX:+UseTransparentHugePages"})
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class RadixIndexBenchmark {

    static final int PROMPT_BLOCKS = 256;
    static final int EVENT_BLOCKS = 16;
    static final int SYSTEM_PROMPTS = 32;
    static final long SEED = 0x5EED_CAFEL;

    /** The populated index and the sequences it holds. */
    @State(Scope.Benchmark)
    public static class Cluster {

        @Param("64")
        int workers;

        @Param("100000")
        int blocksPerWorker;

        FlatRadixIndex index;
        /** Every stored sequence, its worker and the length of its system prompt. */
        BlockHash[][] prompts;
        int[] promptWorker;
        int[] promptPrefix;
        long[] eventIds;
        SplittableRandom random;

        void populate() {
            random = new SplittableRandom(SEED);
            long[][] system = new long[SYSTEM_PROMPTS][];
            for (int s = 0; s < SYSTEM_PROMPTS; s++) {
                system[s] = random.longs(8 + random.nextInt(57)).toArray();
            }
            index = new FlatRadixIndex(workers * blocksPerWorker);
            eventIds = new long[workers];
            List<BlockHash[]> allPrompts = new ArrayList<>();
            List<int[]> owners = new ArrayList<>();
            for (int w = 0; w < workers; w++) {
                WorkerId worker = new WorkerId(w);
                int held = 0;
                while (held < blocksPerWorker) {
                    long[] prefix = system[random.nextInt(SYSTEM_PROMPTS)];
                    BlockHash[] prompt = new BlockHash[PROMPT_BLOCKS];
                    for (int i = 0; i < PROMPT_BLOCKS; i++) {
                        prompt[i] = new BlockHash(i < prefix.length ? prefix[i] : random.nextLong());
                    }
                    for (int from = 0; from < PROMPT_BLOCKS; from += EVENT_BLOCKS) {
                        index.apply(new KvEvent.Stored(worker, ++eventIds[w], from == 0 ? null : prompt[from - 1],
                                stored(prompt, from, from + EVENT_BLOCKS), Tier.G1));
                    }
                    held += PROMPT_BLOCKS - prefix.length;
                    allPrompts.add(prompt);
                    owners.add(new int[] {w, prefix.length});
                }
            }
            prompts = allPrompts.toArray(BlockHash[][]::new);
            promptWorker = owners.stream().mapToInt(o -> o[0]).toArray();
            promptPrefix = owners.stream().mapToInt(o -> o[1]).toArray();
        }
    }

    /** Lookups cycle through every stored sequence in a shuffled order. */
    @State(Scope.Benchmark)
    public static class Lookup extends Cluster {

        BlockHash[][] order;
        int next;

        @Setup(Level.Trial)
        public void build() {
            populate();
            order = prompts.clone();
            shuffle(order, random);
        }
    }

    /** Remove/restore pairs over random units of the whole working set. */
    @State(Scope.Benchmark)
    public static class Churn extends Cluster {

        static final int MAX_UNITS = 1 << 20;
        static final int WINDOW = 4096;
        static final int GROUP = 8;

        @Param({"1", "16"})
        int blocksPerEvent;

        WorkerId[] workerIds;
        int[] unitWorker;
        long[] unitParent;
        /** Unit {@code u}'s block hashes are {@code unitHashes[u * blocksPerEvent ..]}. */
        long[] unitHashes;
        int units;
        long pairs;
        boolean storeNext;
        final KvEvent[] group = new KvEvent[GROUP];

        @Setup(Level.Trial)
        public void build() {
            populate();
            List<int[]> candidates = new ArrayList<>();
            for (int p = 0; p < prompts.length; p++) {
                // Whole runs past the system prompt, so no two units of a worker share a block.
                int first = (promptPrefix[p] + blocksPerEvent - 1) / blocksPerEvent * blocksPerEvent;
                for (int from = first; from + blocksPerEvent <= PROMPT_BLOCKS; from += blocksPerEvent) {
                    candidates.add(new int[] {p, from});
                }
            }
            int[][] picked = candidates.toArray(int[][]::new);
            shuffle(picked, random);
            units = Math.min(MAX_UNITS, picked.length);
            workerIds = new WorkerId[workers];
            for (int w = 0; w < workers; w++) {
                workerIds[w] = new WorkerId(w);
            }
            unitWorker = new int[units];
            unitParent = new long[units];
            unitHashes = new long[units * blocksPerEvent];
            for (int u = 0; u < units; u++) {
                BlockHash[] prompt = prompts[picked[u][0]];
                int from = picked[u][1];
                unitWorker[u] = promptWorker[picked[u][0]];
                unitParent[u] = prompt[from - 1].value();
                for (int i = 0; i < blocksPerEvent; i++) {
                    unitHashes[u * blocksPerEvent + i] = prompt[from + i].value();
                }
            }
            // The last WINDOW units start removed: they are the first to be stored back.
            for (int u = units - WINDOW; u < units; u++) {
                index.apply(removed(u));
            }
        }

        KvEvent removed(int u) {
            int w = unitWorker[u];
            BlockHash[] hashes = new BlockHash[blocksPerEvent];
            for (int i = 0; i < blocksPerEvent; i++) {
                hashes[i] = new BlockHash(unitHashes[u * blocksPerEvent + i]);
            }
            return new KvEvent.Removed(workerIds[w], ++eventIds[w], List.of(hashes), Tier.G1);
        }

        KvEvent restored(int u) {
            int w = unitWorker[u];
            KvEvent.StoredBlock[] blocks = new KvEvent.StoredBlock[blocksPerEvent];
            for (int i = 0; i < blocksPerEvent; i++) {
                long hash = unitHashes[u * blocksPerEvent + i];
                blocks[i] = new KvEvent.StoredBlock(new BlockHash(hash), new LocalBlockHash(hash * 31));
            }
            return new KvEvent.Stored(workerIds[w], ++eventIds[w], new BlockHash(unitParent[u]), List.of(blocks), Tier.G1);
        }

        /** The next event: remove unit {@code n}, then store back unit {@code n - WINDOW}. */
        KvEvent next() {
            int n = (int) (pairs % units);
            KvEvent event;
            if (storeNext) {
                event = restored(n >= WINDOW ? n - WINDOW : n - WINDOW + units);
                pairs++;
            } else {
                event = removed(n);
            }
            storeNext = !storeNext;
            return event;
        }
    }

    private static List<KvEvent.StoredBlock> stored(BlockHash[] prompt, int from, int to) {
        List<KvEvent.StoredBlock> blocks = new ArrayList<>(to - from);
        for (int i = from; i < to; i++) {
            blocks.add(new KvEvent.StoredBlock(prompt[i], new LocalBlockHash(prompt[i].value() * 31)));
        }
        return List.copyOf(blocks);
    }

    private static <T> void shuffle(T[] items, SplittableRandom random) {
        for (int i = items.length - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            T swap = items[i];
            items[i] = items[j];
            items[j] = swap;
        }
    }

    /** One event per operation: remove or restore one churn unit of {@code blocksPerEvent} blocks. */
    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    public Object applyEvents(Churn churn) {
        return churn.index.apply(churn.next());
    }

    /**
     * As {@link #applyEvents}, but in groups of {@link Churn#GROUP} events applied as {@code
     * KvIndexer} applies a drained batch: the index is told to {@link FlatRadixIndex#prefetch
     * prefetch} the whole group, then the group is applied. Throughput is still events/s.
     */
    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OperationsPerInvocation(Churn.GROUP)
    public void applyEventsGrouped(Churn churn, Blackhole outcomes) {
        KvEvent[] group = churn.group;
        for (int i = 0; i < Churn.GROUP; i++) {
            group[i] = churn.next();
        }
        for (int i = 0; i < Churn.GROUP; i++) {
            churn.index.prefetch(group[i]);
        }
        for (int i = 0; i < Churn.GROUP; i++) {
            outcomes.consume(churn.index.apply(group[i]));
        }
    }

    /** Latency of one 256-block lookup against the full index. */
    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    public OverlapScores findMatches(Lookup lookup) {
        BlockHash[] prompt = lookup.order[lookup.next];
        lookup.next = lookup.next + 1 == lookup.order.length ? 0 : lookup.next + 1;
        return lookup.index.findMatches(prompt);
    }
}
