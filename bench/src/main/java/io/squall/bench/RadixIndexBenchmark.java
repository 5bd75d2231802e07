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
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The router's radix index at cluster scale: {@code workers} workers each holding {@code
 * blocksPerWorker} blocks, made of 256-block sequences (4k-token prompts at 16 tokens per block) that
 * start with one of 32 shared system prompts of 8–64 blocks, so workers overlap as in production.
 *
 * <ul>
 *   <li>{@code applyEvents}: steady-state churn — each operation is one event: a worker evicts a
 *       sequence's last {@code blocksPerEvent} blocks, or stores them back. Throughput = events/s.
 *   <li>{@code findMatches}: lookup latency of a 256-block prompt that a random worker holds fully
 *       (others share its system prompt); {@code Mode.SampleTime} gives percentiles.
 * </ul>
 *
 * The workload is drawn from a fixed seed so runs are comparable.
 */
@State(Scope.Benchmark)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class RadixIndexBenchmark {

    static final int PROMPT_BLOCKS = 256;
    static final int SYSTEM_PROMPTS = 32;
    static final int CHURN_PER_WORKER = 64;
    static final long SEED = 0x5EED_CAFEL;

    @Param("64")
    int workers;

    @Param("100000")
    int blocksPerWorker;

    @Param({"1", "16"})
    int blocksPerEvent;

    private FlatRadixIndex index;
    private BlockHash[][] prompts;
    private Churn[] churn;
    private long[] eventIds;
    private int nextChurn;
    private int nextPrompt;

    /** One worker's sequence tail that is evicted and stored back, alternately. */
    private record Churn(WorkerId worker, BlockHash parent, List<KvEvent.StoredBlock> blocks, List<BlockHash> hashes, boolean[] held) {}

    @Setup(Level.Trial)
    public void build() {
        SplittableRandom random = new SplittableRandom(SEED);
        long[][] system = new long[SYSTEM_PROMPTS][];
        for (int s = 0; s < SYSTEM_PROMPTS; s++) {
            system[s] = random.longs(8 + random.nextInt(57)).toArray();
        }
        index = new FlatRadixIndex(workers * blocksPerWorker);
        eventIds = new long[workers];
        List<BlockHash[]> allPrompts = new ArrayList<>();
        List<Churn> allChurn = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            WorkerId worker = new WorkerId(w);
            int held = 0;
            while (held < blocksPerWorker) {
                long[] prefix = system[random.nextInt(SYSTEM_PROMPTS)];
                BlockHash[] prompt = new BlockHash[PROMPT_BLOCKS];
                for (int i = 0; i < PROMPT_BLOCKS; i++) {
                    prompt[i] = new BlockHash(i < prefix.length ? prefix[i] : random.nextLong());
                }
                for (int from = 0; from < PROMPT_BLOCKS; from += 16) {
                    index.apply(new KvEvent.Stored(worker, ++eventIds[w], from == 0 ? null : prompt[from - 1],
                            stored(prompt, from, from + 16), Tier.G1));
                }
                held += PROMPT_BLOCKS - prefix.length;
                allPrompts.add(prompt);
                if (allChurn.size() < (w + 1) * CHURN_PER_WORKER) {
                    int from = PROMPT_BLOCKS - blocksPerEvent;
                    allChurn.add(new Churn(worker, prompt[from - 1], stored(prompt, from, PROMPT_BLOCKS),
                            List.of(prompt).subList(from, PROMPT_BLOCKS), new boolean[] {true}));
                }
            }
        }
        prompts = allPrompts.toArray(BlockHash[][]::new);
        churn = allChurn.toArray(Churn[]::new);
        shuffle(prompts, random);
        shuffle(churn, random);
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

    /** One event per operation: evict or restore a sequence tail of {@code blocksPerEvent} blocks. */
    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OperationsPerInvocation(1)
    public Object applyEvents() {
        Churn next = churn[nextChurn];
        nextChurn = nextChurn + 1 == churn.length ? 0 : nextChurn + 1;
        int w = (int) next.worker().value();
        KvEvent event = next.held()[0]
                ? new KvEvent.Removed(next.worker(), ++eventIds[w], next.hashes(), Tier.G1)
                : new KvEvent.Stored(next.worker(), ++eventIds[w], next.parent(), next.blocks(), Tier.G1);
        next.held()[0] = !next.held()[0];
        return index.apply(event);
    }

    /** Latency of one 256-block lookup against the full index. */
    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    public OverlapScores findMatches() {
        BlockHash[] prompt = prompts[nextPrompt];
        nextPrompt = nextPrompt + 1 == prompts.length ? 0 : nextPrompt + 1;
        return index.findMatches(prompt);
    }
}
