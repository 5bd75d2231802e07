package io.squall.bench;

import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.VectorSpecies;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
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
import java.nio.ByteOrder;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Memory read bandwidth: {@code threads} threads each stream their share of a 1 GiB off-heap buffer
 * with 512-bit loads, the way a batch-1 matmul streams weights. Bytes per second = 1 GiB / time per op;
 * the decode floor of a model is its weight bytes divided by this figure.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
public class MemoryBandwidthBenchmark {

    private static final VectorSpecies<Byte> B = ByteVector.SPECIES_PREFERRED;
    private static final long BYTES = 1L << 30;

    @Param({"1", "2"})
    int threads;

    private Arena arena;
    private MemorySegment buffer;
    private ExecutorService pool;

    @Setup(Level.Trial)
    public void setUp() {
        arena = Arena.ofShared();
        buffer = arena.allocate(BYTES, 64);
        for (long i = 0; i < BYTES; i += 4096) {
            buffer.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) i);
        }
        pool = Executors.newFixedThreadPool(threads);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        pool.shutdown();
        arena.close();
    }

    /** Reads the whole buffer once; the result keeps the loads alive. */
    @Benchmark
    public long readGibibyte() throws Exception {
        long share = BYTES / threads;
        @SuppressWarnings("unchecked")
        Future<Long>[] parts = new Future[threads];
        for (int t = 0; t < threads; t++) {
            long from = t * share;
            parts[t] = pool.submit(() -> sum(buffer, from, from + share));
        }
        long total = 0;
        for (Future<Long> part : parts) {
            total += part.get();
        }
        return total;
    }

    private static long sum(MemorySegment segment, long from, long to) {
        ByteVector acc0 = ByteVector.zero(B);
        ByteVector acc1 = ByteVector.zero(B);
        int step = B.length();
        for (long i = from; i < to; i += 2L * step) {
            acc0 = acc0.or(ByteVector.fromMemorySegment(B, segment, i, ByteOrder.LITTLE_ENDIAN));
            acc1 = acc1.or(ByteVector.fromMemorySegment(B, segment, i + step, ByteOrder.LITTLE_ENDIAN));
        }
        return acc0.or(acc1).reinterpretAsLongs().lane(0);
    }
}
