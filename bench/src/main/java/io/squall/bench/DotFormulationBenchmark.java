package io.squall.bench;

import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Issue 12's question of what C2 and the Vector API emit for an 8-bit dot product, asked of one Q8_0-like matrix
 * (2048x768 levels in −127..127, a scale per 32, activations rounded to the same levels) at batch 1 on one thread:
 * each method computes every row's {@code Σ_blocks d_w·d_x·Σ q_w·q_x}. C2 turns
 * {@code a[2k]·b[2k] + a[2k+1]·b[2k+1]} over {@code short[]} into its {@code MulAddS2I} node, and vectorises that
 * only as an element-wise store ({@code vpmaddwd}) or an element-wise {@code +=} ({@code vpdpwssd} where AVX-512
 * VNNI is present); a reduction of the same shape, or any shape over bytes, stays scalar. The Vector API has no
 * dot-product operation: its nearest is a 16-bit multiply and a pairing of lanes, as {@code IntDots} does. Run with
 * {@code -XX:-UseSuperWord} to see which methods C2 vectorised.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED"})
public class DotFormulationBenchmark {

    private static final int ROWS = 2048;
    private static final int COLS = 768;
    private static final int BLOCKS = COLS / 32;
    /** GGML Q8_0: an f16 scale, then 32 levels. */
    private static final int Q8_0_BYTES = 34;
    private static final ValueLayout.OfShort LE_SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** A block of 32 levels per short vector with 512-bit vectors, half a block with 256-bit ones. */
    private static final VectorSpecies<Short> SHORTS = ShortVector.SPECIES_PREFERRED.length() >= 32
            ? ShortVector.SPECIES_512 : ShortVector.SPECIES_256;
    private static final boolean WIDE = SHORTS.length() == 32;
    private static final VectorSpecies<Byte> BYTES = WIDE ? ByteVector.SPECIES_256 : ByteVector.SPECIES_128;
    private static final VectorSpecies<Integer> INTS = WIDE ? IntVector.SPECIES_512 : IntVector.SPECIES_256;
    private static final VectorSpecies<Float> FLOATS = WIDE ? FloatVector.SPECIES_512 : FloatVector.SPECIES_256;

    /** The matrix as GGML stores it. */
    private MemorySegment q8_0;
    /** The same levels contiguous, row after row, and their scales apart: a layout repacked at load. */
    private MemorySegment levels;
    private float[] scales;
    /** The levels widened to 16 bits, which C2's {@code MulAddS2I} needs. */
    private short[] wide;
    private short[] x;
    private float[] xd;
    private int[] pairs;
    private float[] out;

    @Setup
    public void setUp() {
        SplittableRandom random = new SplittableRandom(42);
        q8_0 = Arena.ofAuto().allocate((long) ROWS * BLOCKS * Q8_0_BYTES, 64);
        levels = Arena.ofAuto().allocate((long) ROWS * COLS, 64);
        scales = new float[ROWS * BLOCKS];
        wide = new short[ROWS * COLS];
        for (int b = 0; b < ROWS * BLOCKS; b++) {
            short half = Float.floatToFloat16(0.001f + 0.01f * (float) random.nextDouble());
            scales[b] = Float.float16ToFloat(half);
            q8_0.set(LE_SHORT, (long) b * Q8_0_BYTES, half);
            for (int j = 0; j < 32; j++) {
                byte level = (byte) (random.nextInt(255) - 127);
                q8_0.set(ValueLayout.JAVA_BYTE, (long) b * Q8_0_BYTES + 2 + j, level);
                levels.set(ValueLayout.JAVA_BYTE, 32L * b + j, level);
                wide[32 * b + j] = level;
            }
        }
        x = new short[COLS];
        xd = new float[BLOCKS];
        for (int i = 0; i < COLS; i++) {
            x[i] = (short) (random.nextInt(255) - 127);
        }
        for (int b = 0; b < BLOCKS; b++) {
            xd[b] = 0.01f + 0.02f * (float) random.nextDouble();
        }
        pairs = new int[COLS / 2];
        out = new float[ROWS];
        checkEveryMethod();
    }

    /** A benchmark of a wrong product would measure nothing: each method must give the float64 dot. */
    private void checkEveryMethod() {
        double[] expected = new double[ROWS];
        for (int r = 0; r < ROWS; r++) {
            for (int b = 0; b < BLOCKS; b++) {
                long sum = 0;
                for (int j = 0; j < 32; j++) {
                    sum += wide[r * COLS + 32 * b + j] * x[32 * b + j];
                }
                expected[r] += (double) scales[r * BLOCKS + b] * xd[b] * sum;
            }
        }
        for (Runnable method : new Runnable[] {this::scalarPairSums, this::pairStores, this::pairAccumulation,
                this::vectorApiOverQ8_0, this::vectorApiOverRepackedLevels}) {
            Arrays.fill(out, Float.NaN);
            method.run();
            for (int r = 0; r < ROWS; r++) {
                if (!(Math.abs(out[r] - expected[r]) <= 1e-4 * (1 + Math.abs(expected[r])))) {
                    throw new IllegalStateException("row " + r + ": " + out[r] + " against " + expected[r]);
                }
            }
        }
    }

    /** {@code s += w[2k]·x[2k] + w[2k+1]·x[2k+1]} per block: the {@code MulAddS2I} shape as a reduction. */
    @Benchmark
    public float[] scalarPairSums() {
        for (int r = 0; r < ROWS; r++) {
            float acc = 0f;
            for (int b = 0; b < BLOCKS; b++) {
                int w = r * COLS + 32 * b;
                int s = 0;
                for (int k = 0; k < 32; k += 2) {
                    s += wide[w + k] * x[32 * b + k] + wide[w + k + 1] * x[32 * b + k + 1];
                }
                acc += scales[r * BLOCKS + b] * xd[b] * s;
            }
            out[r] = acc;
        }
        return out;
    }

    /** {@code t[k] = w[2k]·x[2k] + w[2k+1]·x[2k+1]} over a row (C2: {@code vpmaddwd}), then block sums by vector. */
    @Benchmark
    public float[] pairStores() {
        for (int r = 0; r < ROWS; r++) {
            int w = r * COLS;
            for (int k = 0; k < COLS / 2; k++) {
                pairs[k] = wide[w + 2 * k] * x[2 * k] + wide[w + 2 * k + 1] * x[2 * k + 1];
            }
            out[r] = scaledBlockSums(r);
        }
        return out;
    }

    /** {@code t[k] += w[2k]·x[2k] + w[2k+1]·x[2k+1]} into a zeroed row (C2 with AVX-512 VNNI: {@code vpdpwssd}). */
    @Benchmark
    public float[] pairAccumulation() {
        for (int r = 0; r < ROWS; r++) {
            Arrays.fill(pairs, 0);
            int w = r * COLS;
            for (int k = 0; k < COLS / 2; k++) {
                pairs[k] += wide[w + 2 * k] * x[2 * k] + wide[w + 2 * k + 1] * x[2 * k + 1];
            }
            out[r] = scaledBlockSums(r);
        }
        return out;
    }

    /** Row {@code r}'s dot from {@link #pairs}: 16 pair sums per block, scaled and added as floats. */
    private float scaledBlockSums(int r) {
        FloatVector acc = FloatVector.zero(FLOATS);
        for (int b = 0; b < BLOCKS; b++) {
            for (int h = 0; h < 16; h += INTS.length()) {
                FloatVector sums = (FloatVector) IntVector.fromArray(INTS, pairs, 16 * b + h)
                        .convert(VectorOperators.I2F, 0);
                acc = sums.fma(FloatVector.broadcast(FLOATS, scales[r * BLOCKS + b] * xd[b]), acc);
            }
        }
        return acc.reduceLanes(VectorOperators.ADD);
    }

    /** The Vector API over GGML's blocks, as {@code IntDots.q8_0}: widen, 16-bit products, pair them, scale. */
    @Benchmark
    public float[] vectorApiOverQ8_0() {
        for (int r = 0; r < ROWS; r++) {
            FloatVector acc = FloatVector.zero(FLOATS);
            for (int b = 0; b < BLOCKS; b++) {
                long block = ((long) r * BLOCKS + b) * Q8_0_BYTES;
                float d = Float.float16ToFloat(q8_0.get(LE_SHORT, block));
                acc = blockProducts(q8_0, block + 2, 32 * b).fma(FloatVector.broadcast(FLOATS, d * xd[b]), acc);
            }
            out[r] = acc.reduceLanes(VectorOperators.ADD);
        }
        return out;
    }

    /** The same over contiguous levels and float scales: no f16 decode, aligned loads. */
    @Benchmark
    public float[] vectorApiOverRepackedLevels() {
        for (int r = 0; r < ROWS; r++) {
            FloatVector acc = FloatVector.zero(FLOATS);
            for (int b = 0; b < BLOCKS; b++) {
                acc = blockProducts(levels, (long) r * COLS + 32 * b, 32 * b)
                        .fma(FloatVector.broadcast(FLOATS, scales[r * BLOCKS + b] * xd[b]), acc);
            }
            out[r] = acc.reduceLanes(VectorOperators.ADD);
        }
        return out;
    }

    /** {@code Σ q_w·q_x} of the 32 levels at byte {@code at} and {@code x[xi ..]}, in float lanes. */
    private FloatVector blockProducts(MemorySegment w, long at, int xi) {
        IntVector sum = pairedProducts(w, at, xi);
        if (!WIDE) {
            sum = sum.add(pairedProducts(w, at + 16, xi + 16));
        }
        return (FloatVector) sum.convert(VectorOperators.I2F, 0);
    }

    /** The products of {@link #SHORTS}' length of levels, adjacent pairs summed into int lanes. */
    private IntVector pairedProducts(MemorySegment w, long at, int xi) {
        ShortVector q = (ShortVector) ByteVector.fromMemorySegment(BYTES, w, at, ByteOrder.LITTLE_ENDIAN)
                .convertShape(VectorOperators.B2S, SHORTS, 0);
        IntVector products = q.mul(ShortVector.fromArray(SHORTS, x, xi)).reinterpretAsInts();
        return products.add(products.lanewise(VectorOperators.LSHL, 16)).lanewise(VectorOperators.ASHR, 16);
    }
}
