package io.squall.kernels;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/**
 * The contract every {@link Kernels} implementation meets: each operation against a float64
 * reference computed here, on fresh random inputs of awkward sizes.
 */
public abstract class KernelContract {

    private static final java.lang.foreign.ValueLayout.OfFloat LE_FLOAT =
            java.lang.foreign.ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);

    private final TestData data = new TestData(getClass().getSimpleName());
    private Kernels kernels;

    /** A fresh instance under test. */
    protected abstract Kernels create();

    @BeforeEach
    void open() {
        kernels = create();
    }

    @AfterEach
    void close() {
        kernels.close();
    }

    /** Every format with a matmul kernel. */
    private static GgmlType[] supportedTypes() {
        return java.util.Arrays.stream(GgmlType.values()).filter(GgmlType::isMatmulSupported).toArray(GgmlType[]::new);
    }

    static Stream<Arguments> matmulCases() {
        List<Arguments> cases = new ArrayList<>();
        for (GgmlType type : supportedTypes()) {
            int cols = type.blockSize() == 256 ? 256 * 3 : 32 * 7;
            // 2 rows: fewer than a 4×4 tile takes; 41: the broadcast tiles' pair of vectors, then one vector
            // of which 9 rows are real
            for (int batch : new int[]{1, 2, 3, 5, 17, 41}) {
                cases.add(Arguments.of(type, 37, cols, batch));
            }
            // a whole matrix narrower than one 512-bit load: the kernels' reads stop at the segment's end
            cases.add(Arguments.of(type, 3, 2 * type.blockSize(), 1));
        }
        cases.add(Arguments.of(GgmlType.F32, 9, 37, 4));
        cases.add(Arguments.of(GgmlType.F32, 11, 37, 33));
        // rows a multiple of 8, from one vector of activation rows on: F32 read in place as eight runs; one vector
        // (16), a pair and one vector (41), runs of 65 rows split unevenly over the chunks, several tiles each (520)
        cases.add(Arguments.of(GgmlType.F32, 64, 37, 16));
        cases.add(Arguments.of(GgmlType.F32, 1024, 37, 41));
        cases.add(Arguments.of(GgmlType.F32, 520, 40, 17));
        cases.add(Arguments.of(GgmlType.F32, 8, 33, 64));
        cases.add(Arguments.of(GgmlType.F16, 6, 45, 2));
        cases.add(Arguments.of(GgmlType.BF16, 5, 19, 1));
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} {1}x{2} batch {3}")
    @MethodSource("matmulCases")
    void matmulMatchesFloat64OnEncodedWeights(GgmlType type, int rows, int cols, int batch) {
        checkMatmul(data.encoded(type, rows, cols), batch);
    }

    @ParameterizedTest(name = "{0} {1}x{2} batch {3}")
    @MethodSource("matmulCases")
    void matmulMatchesFloat64OnArbitraryBlocks(GgmlType type, int rows, int cols, int batch) {
        if (type.blockSize() > 1) {
            checkMatmul(data.randomBlocks(type, rows, cols), batch);
        }
    }

    /** A prepared matrix (which an executor may hold in a layout of its own) gives the products of one never prepared. */
    @ParameterizedTest(name = "{0} {1}x{2} batch {3}")
    @MethodSource("matmulCases")
    void preparedMatmulMatchesFloat64(GgmlType type, int rows, int cols, int batch) {
        WeightMatrix w = type.blockSize() > 1 ? data.randomBlocks(type, rows, cols) : data.encoded(type, rows, cols);
        kernels.prepare(List.of(w));
        kernels.prepare(List.of(w)); // idempotent
        checkMatmul(w, batch);
    }

    /**
     * A released matrix (the executor frees what it made of it) still multiplies correctly, from its own layout, beside
     * one still prepared; releasing a matrix twice, or one never prepared, changes nothing.
     */
    @Test
    void releasedMatricesStillMultiply() {
        int cols = 512;
        List<WeightMatrix> released = List.of(data.randomBlocks(GgmlType.Q4_0, 48, cols),
                data.randomBlocks(GgmlType.Q4_K, 40, cols), data.randomBlocks(GgmlType.Q6_K, 24, cols));
        WeightMatrix kept = data.randomBlocks(GgmlType.Q4_0, 56, cols);
        List<WeightMatrix> all = new ArrayList<>(released);
        all.add(kept);
        kernels.prepare(all);
        kernels.release(released);
        kernels.release(released);
        kernels.release(List.of(data.randomBlocks(GgmlType.Q8_0, 8, cols)));
        for (WeightMatrix w : all) {
            checkMatmul(w, 1);
            checkMatmul(w, 3);
        }
    }

    private void checkMatmul(WeightMatrix w, int batch) {
        float[] x = data.floats(batch * w.cols(), 2);
        float[] out = new float[batch * w.rows()];
        kernels.matmul(w, x, out, batch);
        assertMatmul(w, x, out, batch);
    }

    /**
     * Each output within float32 summation error ({@code 2e-5·Σ|w·x|}) of float64 {@code Σ w·x}; for a
     * quantized weight, also within the error of rounding the activations to 8 bits per block as llama.cpp
     * does (blocks of the weight's block size, {@code d = max|x|/127}, a scale rounded to f16): at most
     * {@code Σ_c |w_c|·max|x|_block(c)·(1/254 + 2^−11)}.
     */
    private void assertMatmul(WeightMatrix w, float[] x, float[] out, int batch) {
        double[] weights = TestData.dequantized(w);
        int block = w.type().blockSize();
        double rounding = block > 1 ? 1.0 / 254 + 1.0 / 2048 : 0;
        for (int b = 0; b < batch; b++) {
            double[] blockMax = new double[w.cols() / block];
            for (int c = 0; c < w.cols(); c++) {
                blockMax[c / block] = Math.max(blockMax[c / block], Math.abs(x[b * w.cols() + c]));
            }
            for (int r = 0; r < w.rows(); r++) {
                double sum = 0;
                double magnitude = 0;
                double activationError = 0;
                for (int c = 0; c < w.cols(); c++) {
                    double p = weights[r * w.cols() + c] * x[b * w.cols() + c];
                    sum += p;
                    magnitude += Math.abs(p);
                    activationError += Math.abs(weights[r * w.cols() + c]) * blockMax[c / block] * rounding;
                }
                assertThat((double) out[b * w.rows() + r])
                        .as("seed %d, %s %dx%d, batch row %d, row %d", data.seed, w.type(), w.rows(), w.cols(), b, r)
                        .isCloseTo(sum, within(2e-5 * magnitude + activationError + 1e-30));
            }
        }
    }

    @Test
    void matmulManyComputesEachMatrixFromTheSharedInput() {
        // 17 and 40 rows: the F32 matrices read in place next to tiles that decode, as an F32 model's q, k and v
        for (int batch : new int[]{1, 6, 17, 40}) {
            WeightMatrix[] ws = {data.encoded(GgmlType.Q8_0, 64, 96), data.encoded(GgmlType.Q8_0, 13, 96),
                    data.encoded(GgmlType.F32, 21, 96), data.encoded(GgmlType.F32, 48, 96)};
            float[] x = data.floats(batch * 96, 1);
            float[][] outs = {new float[batch * 64], new float[batch * 13], new float[batch * 21], new float[batch * 48]};
            kernels.matmulMany(ws, x, outs, batch);
            for (int i = 0; i < ws.length; i++) {
                assertMatmul(ws[i], x, outs[i], batch);
            }
        }
    }

    @Test
    void matmulManyMixesPreparedAndUnpreparedMatrices() {
        int cols = 256;
        WeightMatrix preparedQ4 = data.randomBlocks(GgmlType.Q4_0, 104, cols);
        WeightMatrix preparedQ8 = data.randomBlocks(GgmlType.Q8_0, 37, cols);
        WeightMatrix preparedQ4K = data.randomBlocks(GgmlType.Q4_K, 41, cols);
        WeightMatrix preparedQ6K = data.randomBlocks(GgmlType.Q6_K, 70, cols);
        kernels.prepare(List.of(preparedQ4, preparedQ8, preparedQ4K, preparedQ6K));
        WeightMatrix[] ws = {preparedQ4, data.randomBlocks(GgmlType.Q4_0, 13, cols), data.encoded(GgmlType.F32, 21, cols),
                preparedQ8, preparedQ4K, data.randomBlocks(GgmlType.Q4_K, 9, cols), preparedQ6K,
                data.randomBlocks(GgmlType.Q6_K, 5, cols)};
        for (int batch : new int[]{1, 6}) {
            float[] x = data.floats(batch * cols, 1);
            float[][] outs = new float[ws.length][];
            for (int i = 0; i < ws.length; i++) {
                outs[i] = new float[batch * ws[i].rows()];
            }
            kernels.matmulMany(ws, x, outs, batch);
            for (int i = 0; i < ws.length; i++) {
                assertMatmul(ws[i], x, outs[i], batch);
            }
        }
    }

    @Test
    void largeMatmulsSplitAcrossThreadsGiveTheSameRows() {
        WeightMatrix w = data.encoded(GgmlType.Q4_0, 1001, 128);
        float[] x = data.floats(3 * 128, 1);
        float[] out = new float[3 * 1001];
        for (int repeat = 0; repeat < 3; repeat++) {
            kernels.matmul(w, x, out, 3);
            assertMatmul(w, x, out, 3);
        }
    }

    @Test
    void dequantizeRowMatchesTheCodec() {
        for (GgmlType type : supportedTypes()) {
            WeightMatrix w = type.blockSize() == 1 ? data.encoded(type, 5, 512) : data.randomBlocks(type, 5, 512);
            double[] expected = TestData.dequantized(w);
            float[] out = new float[512 + 3];
            kernels.dequantizeRow(w, 4, out, 3);
            for (int c = 0; c < 512; c++) {
                double e = expected[4 * 512 + c];
                assertThat((double) out[3 + c]).as("seed %d, %s column %d", data.seed, type, c)
                        .isCloseTo(e, within(1e-6 * Math.abs(e) + 1e-9));
            }
        }
    }

    @Test
    void rmsnormScalesEachRowToUnitRootMeanSquare() {
        for (int[] shape : new int[][]{{1, 37}, {5, 768}, {64, 768}}) {
            int rows = shape[0];
            int dim = shape[1];
            float[] x = data.floats(rows * dim, 3);
            float[] weight = data.floats(dim, 2);
            float[] out = new float[rows * dim];
            kernels.rmsnorm(out, x, weight, rows, dim, 1e-5f);
            for (int r = 0; r < rows; r++) {
                double ss = 0;
                for (int i = 0; i < dim; i++) {
                    ss += (double) x[r * dim + i] * x[r * dim + i];
                }
                double inv = 1 / Math.sqrt(ss / dim + 1e-5);
                for (int i = 0; i < dim; i++) {
                    double e = x[r * dim + i] * inv * weight[i];
                    assertThat((double) out[r * dim + i]).as("seed %d, %dx%d [%d][%d]", data.seed, rows, dim, r, i)
                            .isCloseTo(e, within(1e-5 * (1 + Math.abs(e))));
                }
            }
            kernels.rmsnorm(x, x, weight, rows, dim, 1e-5f);
            assertThat(x).as("in place").containsExactly(out);
        }
    }

    @Test
    void ropeRotatesNormalAndNeoxPairs() {
        int heads = 3;
        int maxPos = 40;
        for (int headDim : new int[]{8, 64, 128}) {
            for (int rotaryDim : new int[]{headDim, headDim / 2}) {
                for (boolean neox : new boolean[]{false, true}) {
                    int half = rotaryDim / 2;
                    float[] cos = new float[maxPos * half];
                    float[] sin = new float[maxPos * half];
                    for (int p = 0; p < maxPos; p++) {
                        for (int i = 0; i < half; i++) {
                            double angle = p * Math.pow(10000, -2.0 * i / rotaryDim);
                            cos[p * half + i] = (float) Math.cos(angle);
                            sin[p * half + i] = (float) Math.sin(angle);
                        }
                    }
                    int batch = 3;
                    int[] positions = {0, 17, maxPos - 1};
                    float[] x = data.floats(batch * heads * headDim, 1);
                    float[] original = x.clone();
                    kernels.rope(x, batch, positions, heads, headDim, rotaryDim, cos, sin, neox);
                    for (int b = 0; b < batch; b++) {
                        for (int h = 0; h < heads; h++) {
                            int base = (b * heads + h) * headDim;
                            for (int i = 0; i < half; i++) {
                                int i0 = neox ? base + i : base + 2 * i;
                                int i1 = neox ? i0 + half : i0 + 1;
                                double angle = positions[b] * Math.pow(10000, -2.0 * i / rotaryDim);
                                double c = Math.cos(angle);
                                double s = Math.sin(angle);
                                String what = "seed " + data.seed + " headDim " + headDim + " rotary " + rotaryDim
                                        + " neox " + neox + " b " + b + " h " + h + " i " + i;
                                assertThat((double) x[i0]).as(what)
                                        .isCloseTo(original[i0] * c - original[i1] * s, within(1e-5));
                                assertThat((double) x[i1]).as(what)
                                        .isCloseTo(original[i0] * s + original[i1] * c, within(1e-5));
                            }
                            for (int d = rotaryDim; d < headDim; d++) {
                                assertThat(x[base + d]).as("unrotated tail").isEqualTo(original[base + d]);
                            }
                        }
                    }
                }
            }
        }
    }

    /** Writes {@code context} rows of keys and values into pages of {@code blockSize} positions, pages in reverse order. */
    private static PagedKv paged(float[] k, float[] v, int context, int kvDim, int blockSize) {
        long planeBytes = (long) blockSize * kvDim * Float.BYTES;
        long pageBytes = 4 * planeBytes; // two layers per page: this is the second one
        int pages = (context + blockSize - 1) / blockSize;
        int[] table = new int[pages];
        for (int i = 0; i < pages; i++) {
            table[i] = pages + 3 - i;
        }
        java.lang.foreign.MemorySegment pool = java.lang.foreign.Arena.ofAuto().allocate((pages + 4) * pageBytes, 64);
        PagedKv kv = new PagedKv(pool, pageBytes, blockSize, 2 * planeBytes, 3 * planeBytes, table);
        write(kv, k, v, context, kvDim);
        return kv;
    }

    /** A contiguous cache: one page holding every position, keys then values. */
    private static PagedKv contiguous(float[] k, float[] v, int context, int kvDim) {
        long planeBytes = (long) context * kvDim * Float.BYTES;
        java.lang.foreign.MemorySegment pool = java.lang.foreign.Arena.ofAuto().allocate(2 * planeBytes, 64);
        PagedKv kv = new PagedKv(pool, pool.byteSize(), context, 0, planeBytes, new int[] {0});
        write(kv, k, v, context, kvDim);
        return kv;
    }

    /** Stores rows {@code [t][kvDim]} of keys and values at positions {@code 0 .. context-1} of {@code kv}. */
    private static void write(PagedKv kv, float[] k, float[] v, int context, int kvDim) {
        long rowBytes = (long) kvDim * Float.BYTES;
        for (int t = 0; t < context; t++) {
            for (int j = 0; j < kvDim; j++) {
                kv.pages().set(LE_FLOAT, kv.keyElement(t, j), k[t * kvDim + j]);
            }
            java.lang.foreign.MemorySegment.copy(v, t * kvDim, kv.pages(), LE_FLOAT, kv.valueRow(t, rowBytes), kvDim);
        }
    }

    @Test
    void attentionIsCausalGroupedQuerySoftmaxWeightingOverContiguousAndScatteredPages() {
        int heads = 12;
        int kvHeads = 4;
        for (int headDim : new int[]{8, 64, 128}) {
            for (int[] run : new int[][]{{1, 0}, {5, 0}, {1, 30}, {5, 7}, {7, 37}}) {
                int batch = run[0];
                int startPos = run[1];
                int context = startPos + batch;
                int kvDim = kvHeads * headDim;
                float[] q = data.floats(batch * heads * headDim, 1);
                float[] k = data.floats(context * kvDim, 1);
                float[] v = data.floats(context * kvDim, 1);
                float scale = (float) (1 / Math.sqrt(headDim));
                for (PagedKv kv : List.of(contiguous(k, v, context, kvDim), paged(k, v, context, kvDim, 16))) {
                    float[] out = new float[batch * heads * headDim];
                    kernels.attention(q, kv, out, batch, startPos, heads, kvHeads, headDim, scale);
                    assertAttention(q, k, v, out, new int[] {batch, startPos, heads, kvHeads, headDim, kv.blockSize()}, scale);
                }
            }
        }
    }

    @Test
    void attentionOverLongPrefillsAcrossQueryTilesAndKeyBlocks() {
        // {batch, startPos, heads, kvHeads, headDim, blockSize}: tiles of query rows end mid-batch,
        // key blocks end mid-page and mid-tile, and group sizes 1, 3 and 8 change the tile height.
        for (int[] shape : new int[][]{
                {70, 200, 12, 4, 64, 16}, {33, 0, 12, 4, 64, 16}, {17, 63, 12, 4, 64, 7},
                {49, 15, 4, 4, 64, 16}, {20, 100, 8, 1, 32, 16}, {4, 129, 12, 4, 24, 5}, {40, 3, 6, 2, 8, 16}}) {
            int batch = shape[0];
            int startPos = shape[1];
            int heads = shape[2];
            int kvHeads = shape[3];
            int headDim = shape[4];
            int context = startPos + batch;
            int kvDim = kvHeads * headDim;
            float[] q = data.floats(batch * heads * headDim, 1);
            float[] k = data.floats(context * kvDim, 1);
            float[] v = data.floats(context * kvDim, 1);
            float scale = (float) (1 / Math.sqrt(headDim));
            for (PagedKv kv : List.of(contiguous(k, v, context, kvDim), paged(k, v, context, kvDim, shape[5]))) {
                float[] out = new float[batch * heads * headDim];
                kernels.attention(q, kv, out, batch, startPos, heads, kvHeads, headDim, scale);
                assertAttention(q, k, v, out, new int[] {batch, startPos, heads, kvHeads, headDim, kv.blockSize()}, scale);
            }
        }
    }

    @Test
    void attentionOfSeveralSequencesInOneCallGivesEachItsOwnResult() {
        // {rows, startPos, blockSize}: decode rows and prefill chunks mixed, pages of 16 and of 7 slots
        int[][] sequences = {{1, 40, 16}, {5, 0, 16}, {1, 130, 7}, {33, 17, 16}, {1, 0, 16}, {2, 63, 5}};
        int heads = 12;
        int kvHeads = 4;
        int headDim = 64;
        int qDim = heads * headDim;
        int kvDim = kvHeads * headDim;
        float scale = (float) (1 / Math.sqrt(headDim));
        int n = sequences.length;
        PagedKv[] kvs = new PagedKv[n];
        int[] rows = new int[n];
        int[] starts = new int[n];
        int total = 0;
        for (int[] sequence : sequences) {
            total += sequence[0];
        }
        float[] q = data.floats(total * qDim, 1);
        float[] expected = new float[total * qDim];
        int row = 0;
        for (int s = 0; s < n; s++) {
            rows[s] = sequences[s][0];
            starts[s] = sequences[s][1];
            int context = starts[s] + rows[s];
            kvs[s] = paged(data.floats(context * kvDim, 1), data.floats(context * kvDim, 1), context, kvDim,
                    sequences[s][2]);
            float[] alone = new float[rows[s] * qDim];
            kernels.attention(java.util.Arrays.copyOfRange(q, row * qDim, (row + rows[s]) * qDim), kvs[s], alone,
                    rows[s], starts[s], heads, kvHeads, headDim, scale);
            System.arraycopy(alone, 0, expected, row * qDim, alone.length);
            row += rows[s];
        }
        float[] out = new float[total * qDim];
        kernels.attention(q, out, kvs, rows, starts, n, heads, kvHeads, headDim, scale);
        assertThat(out).containsExactly(expected);

        assertThatThrownBy(() -> kernels.attention(q, out, java.util.Arrays.copyOf(kvs, n - 1), rows, starts, n,
                heads, kvHeads, headDim, scale))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("kvs");
        int[] tooLong = rows.clone();
        tooLong[0] = 500;
        assertThatThrownBy(() -> kernels.attention(q, out, kvs, tooLong, starts, n, heads, kvHeads, headDim, scale))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void attentionKeepsSoftmaxStableForLargeScores() {
        // Scores in the hundreds: a running max that grows block after block must rescale, not overflow.
        int batch = 9;
        int startPos = 150;
        int heads = 6;
        int kvHeads = 2;
        int headDim = 16;
        int context = startPos + batch;
        int kvDim = kvHeads * headDim;
        float[] q = data.floats(batch * heads * headDim, 6);
        float[] k = data.floats(context * kvDim, 1);
        for (int t = 0; t < context; t++) {
            for (int i = 0; i < kvDim; i++) {
                k[t * kvDim + i] *= 1 + t / 16f;
            }
        }
        float[] v = data.floats(context * kvDim, 1);
        PagedKv kv = paged(k, v, context, kvDim, 16);
        float[] out = new float[batch * heads * headDim];
        kernels.attention(q, kv, out, batch, startPos, heads, kvHeads, headDim, 1f);
        assertAttention(q, k, v, out, new int[] {batch, startPos, heads, kvHeads, headDim, kv.blockSize()}, 1f);
    }

    /**
     * Checks {@code out} against float64; {@code shape} is batch, startPos, heads, kvHeads, headDim, blockSize. The
     * kernels round each score to float32, an error that grows with the score's size and goes into every softmax
     * weight: so the tolerance is 2e-5 plus four float32 ulps of the head's largest score (2e-6 more at scores near 10,
     * 7e-5 at the hundreds of the large-score case, which a fixed 2e-5 failed by 9e-7 with seed 9073761952853).
     */
    private void assertAttention(float[] q, float[] k, float[] v, float[] out, int[] shape, float scale) {
        int batch = shape[0];
        int startPos = shape[1];
        int heads = shape[2];
        int kvHeads = shape[3];
        int headDim = shape[4];
        for (int b = 0; b < batch; b++) {
            for (int h = 0; h < heads; h++) {
                int g = h / (heads / kvHeads);
                int last = startPos + b;
                double[] score = new double[last + 1];
                double max = Double.NEGATIVE_INFINITY;
                for (int t = 0; t <= last; t++) {
                    for (int i = 0; i < headDim; i++) {
                        score[t] += (double) q[(b * heads + h) * headDim + i] * k[(t * kvHeads + g) * headDim + i];
                    }
                    score[t] *= scale;
                    max = Math.max(max, score[t]);
                }
                double sum = 0;
                double largest = 0;
                for (int t = 0; t <= last; t++) {
                    largest = Math.max(largest, Math.abs(score[t]));
                    score[t] = Math.exp(score[t] - max);
                    sum += score[t];
                }
                double tolerance = 2e-5 + largest * 0x1p-22;
                for (int i = 0; i < headDim; i++) {
                    double e = 0;
                    for (int t = 0; t <= last; t++) {
                        e += score[t] / sum * v[(t * kvHeads + g) * headDim + i];
                    }
                    assertThat((double) out[(b * heads + h) * headDim + i])
                            .as("seed %d shape %s b %d h %d i %d", data.seed, java.util.Arrays.toString(shape), b, h, i)
                            .isCloseTo(e, within(tolerance));
                }
            }
        }
    }

    @Test
    void attentionRejectsATableTooShortForThePositions() {
        java.lang.foreign.MemorySegment pool = java.lang.foreign.Arena.ofAuto().allocate(4096, 64);
        PagedKv paged = new PagedKv(pool, 1024, 4, 0, 512, new int[] {0});
        assertThatThrownBy(() -> kernels.attention(new float[8], paged, new float[8], 1, 4, 1, 1, 8, 1f))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("block table");
    }

    @Test
    void siluMulIsSwiGlu() {
        for (int n : new int[]{1, 37, 2048 * 3 + 5, 64 * 2048}) {
            float[] gate = data.floats(n, 6);
            float[] up = data.floats(n, 2);
            float[] original = gate.clone();
            kernels.siluMul(gate, up, n);
            for (int i = 0; i < n; i++) {
                double g = original[i];
                double e = g / (1 + Math.exp(-g)) * up[i];
                assertThat((double) gate[i]).as("seed %d n %d i %d", data.seed, n, i)
                        .isCloseTo(e, within(1e-5 * (1 + Math.abs(e))));
            }
        }
    }

    @Test
    void addAndAddBiasAreElementwise() {
        float[] acc = data.floats(101, 1);
        float[] x = data.floats(101, 1);
        float[] expected = new float[101];
        for (int i = 0; i < 101; i++) {
            expected[i] = acc[i] + x[i];
        }
        kernels.add(acc, x, 101);
        assertThat(acc).containsExactly(expected);

        float[] rows = data.floats(3 * 37, 1);
        float[] bias = data.floats(37, 1);
        float[] biased = rows.clone();
        kernels.addBias(biased, bias, 3, 37);
        for (int i = 0; i < rows.length; i++) {
            assertThat(biased[i]).isEqualTo(rows[i] + bias[i % 37]);
        }
    }

    @Test
    void softmaxIsStableAndTouchesOnlyItsRange() {
        for (int n : new int[]{1, 7, 37, 1000}) {
            float[] x = data.floats(n + 4, 50);
            x[2] = 1000f;
            float[] original = x.clone();
            kernels.softmax(x, 2, n);
            double max = Double.NEGATIVE_INFINITY;
            for (int i = 0; i < n; i++) {
                max = Math.max(max, original[2 + i]);
            }
            double sum = 0;
            for (int i = 0; i < n; i++) {
                sum += Math.exp(original[2 + i] - max);
            }
            for (int i = 0; i < n; i++) {
                double e = Math.exp(original[2 + i] - max) / sum;
                assertThat((double) x[2 + i]).as("seed %d n %d i %d", data.seed, n, i).isCloseTo(e, within(1e-6));
            }
            assertThat(x[0]).isEqualTo(original[0]);
            assertThat(x[1]).isEqualTo(original[1]);
            assertThat(x[n + 2]).isEqualTo(original[n + 2]);
        }
    }

    @Test
    void rejectsInconsistentArguments() {
        WeightMatrix w = data.encoded(GgmlType.Q8_0, 4, 64);
        assertThatThrownBy(() -> kernels.matmul(w, new float[63], new float[4], 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("x");
        assertThatThrownBy(() -> kernels.matmul(w, new float[64], new float[4], 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("batch");
        PagedKv kv = new PagedKv(java.lang.foreign.Arena.ofAuto().allocate(1024), 1024, 8, 0, 512, new int[] {0});
        assertThatThrownBy(() -> kernels.attention(new float[24], kv, new float[24], 1, 0, 3, 2, 8, 1f))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("kvHeads");
        assertThatThrownBy(() -> kernels.matmulMany(new WeightMatrix[]{w, data.encoded(GgmlType.Q8_0, 4, 32)},
                new float[64], new float[][]{new float[4], new float[4]}, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("columns");
    }
}
