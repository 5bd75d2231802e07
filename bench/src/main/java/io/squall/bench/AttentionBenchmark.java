package io.squall.bench;

import io.squall.kernels.Kernels;
import io.squall.kernels.PagedKv;
import io.squall.kernels.cpu.CpuKernels;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * {@link CpuKernels#attention} for one layer of a 124M-parameter llama (12 heads, 4 KV heads, head
 * dim 64) over a paged cache of {@code blockSize}-position pages in shuffled order. The last query
 * row sits at position {@code context − 1}: {@code batch} 1 is one decode step at that position,
 * {@code batch} 512 the last prefill chunk of a {@code context}-token prompt
 * ({@code startPos = context − batch}). With {@code sequences} above 1, that many sequences of the same
 * shape, each with its own pages, go through one several-sequence call: a batched decode step. With
 * {@code layers} above 1, each call reads the next of that many caches of the same shape, as a step's layers do:
 * at 12 layers of 16 sequences the keys and values no longer fit the last-level cache, as in a serving step.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
        "-XX:+UseParallelGC", "-Xmx2g"})
public class AttentionBenchmark {

    private static final ValueLayout.OfFloat LE_FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** Query rows of the call. */
    @Param({"1", "512"})
    public int batch;

    /** Positions visible to the last query row (tokens). */
    @Param({"2048"})
    public int context;

    @Param({"12"})
    public int heads;

    @Param({"4"})
    public int kvHeads;

    @Param({"64"})
    public int headDim;

    /** Positions per KV page. */
    @Param({"16"})
    public int blockSize;

    /** Sequences in the call. */
    @Param({"1"})
    public int sequences;

    /** Caches of this shape, one read per call in turn. */
    @Param({"1"})
    public int layers;

    /** Threads of the CPU executor, the caller included. */
    @Param({"2"})
    public int threads;

    private Kernels kernels;
    private Arena arena;
    /** {@code [layer][sequence]}. */
    private PagedKv[][] kvs;
    private int layer;
    private int[] rows;
    private int[] starts;
    private float[] q;
    private float[] out;
    private float scale;

    @Setup
    public void setUp() {
        SplittableRandom random = new SplittableRandom(42);
        int kvDim = kvHeads * headDim;
        int pagesPerSequence = (context + blockSize - 1) / blockSize;
        int pages = pagesPerSequence * sequences * layers;
        long planeBytes = (long) blockSize * kvDim * Float.BYTES;
        long pageBytes = 2 * planeBytes;
        int[] order = new int[pages];
        for (int i = 0; i < pages; i++) {
            order[i] = i;
        }
        for (int i = pages - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int swap = order[i];
            order[i] = order[j];
            order[j] = swap;
        }
        arena = Arena.ofShared();
        MemorySegment pool = arena.allocate(pages * pageBytes, 64);
        for (long off = 0; off < pool.byteSize(); off += Float.BYTES) {
            pool.set(LE_FLOAT, off, (float) random.nextGaussian());
        }
        kvs = new PagedKv[layers][sequences];
        for (int l = 0; l < layers; l++) {
            for (int s = 0; s < sequences; s++) {
                int first = (l * sequences + s) * pagesPerSequence;
                kvs[l][s] = new PagedKv(pool, pageBytes, blockSize, 0, planeBytes,
                        Arrays.copyOfRange(order, first, first + pagesPerSequence));
            }
        }
        rows = new int[sequences];
        starts = new int[sequences];
        Arrays.fill(rows, batch);
        Arrays.fill(starts, context - batch);
        q = new float[sequences * batch * heads * headDim];
        for (int i = 0; i < q.length; i++) {
            q[i] = (float) random.nextGaussian();
        }
        out = new float[q.length];
        scale = (float) (1 / Math.sqrt(headDim));
        kernels = new CpuKernels(threads);
    }

    @TearDown
    public void tearDown() {
        kernels.close();
        arena.close();
    }

    @Benchmark
    public float[] attention() {
        PagedKv[] kv = kvs[layer];
        layer = (layer + 1) % layers;
        if (sequences == 1) {
            kernels.attention(q, kv[0], out, batch, context - batch, heads, kvHeads, headDim, scale);
        } else {
            kernels.attention(q, out, kv, rows, starts, sequences, heads, kvHeads, headDim, scale);
        }
        return out;
    }
}
