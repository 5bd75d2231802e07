package io.squall.bench;

import io.squall.kernels.GgmlType;
import io.squall.kernels.Kernels;
import io.squall.kernels.WeightMatrix;
import io.squall.kernels.cpu.CpuKernels;
import io.squall.kernels.format.GgmlCodec;
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

import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * {@link CpuKernels#matmul} on the weight shapes of a 124M-parameter llama (dim 768, ffn 2048,
 * vocab 32000), for one activation row (decode: bound by weight bytes read, compare
 * {@code rows·rowBytes / time} with memory bandwidth) and 64 rows (prefill: compare
 * {@code 2·rows·cols·64 / time} with peak FLOP/s). Shapes are {@code rows x cols} (output × input).
 * {@code prepared} hands the matrices to {@link Kernels#prepare} first, as the engine does (the CPU executor then
 * holds Q4_0, Q4_K and Q6_K interleaved); {@code copies} cycles each call through that many copies of the matrix, so that with
 * enough of them the weights come from memory, as in a decode step, rather than from the caches.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
        "-XX:+UseParallelGC", "-Xmx2g"})
public class MatmulBenchmark {

    @Param({"F32", "F16", "Q8_0", "Q4_0", "Q4_K", "Q6_K", "Q5_K", "Q3_K", "IQ4_XS"})
    public String type;

    @Param({"768x768", "2048x768", "768x2048", "32000x768"})
    public String shape;

    @Param({"1", "64"})
    public int batch;

    @Param({"true"})
    public boolean prepared;

    @Param({"1"})
    public int copies;

    /** Threads of the CPU executor, the caller included. */
    @Param({"2"})
    public int threads;

    private Kernels kernels;
    private WeightMatrix[] weights;
    private int next;
    private float[] x;
    private float[] out;

    @Setup
    public void setUp() {
        int rows = Integer.parseInt(shape.substring(0, shape.indexOf('x')));
        int cols = Integer.parseInt(shape.substring(shape.indexOf('x') + 1));
        SplittableRandom random = new SplittableRandom(42);
        float[] values = new float[rows * cols];
        for (int i = 0; i < values.length; i++) {
            values[i] = (float) random.nextGaussian(0, 0.05);
        }
        weights = new WeightMatrix[copies];
        for (int c = 0; c < copies; c++) {
            weights[c] = GgmlCodec.encode(type + "-" + shape + "-" + c, GgmlType.valueOf(type), rows, cols, values);
        }
        x = new float[batch * cols];
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) random.nextGaussian();
        }
        out = new float[batch * rows];
        kernels = new CpuKernels(threads);
        if (prepared) {
            kernels.prepare(List.of(weights));
        }
    }

    @TearDown
    public void tearDown() {
        kernels.close();
    }

    @Benchmark
    public float[] matmul() {
        WeightMatrix w = weights[next];
        next = next + 1 == copies ? 0 : next + 1;
        kernels.matmul(w, x, out, batch);
        return out;
    }
}
