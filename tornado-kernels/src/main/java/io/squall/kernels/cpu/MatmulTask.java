package io.squall.kernels.cpu;

import io.squall.kernels.GgmlType;
import io.squall.kernels.WeightMatrix;
import io.squall.kernels.format.NibbleBlock;
import io.squall.kernels.format.Q4_0Codec;
import io.squall.kernels.format.Q4_KCodec;
import io.squall.kernels.format.Q6_KCodec;
import io.squall.kernels.format.Q8_0Codec;

import jdk.incubator.vector.FloatVector;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import static io.squall.kernels.cpu.Lanes.F;
import static io.squall.kernels.cpu.Lanes.L;

/**
 * One or more matmuls sharing an input, split into chunks of whole 4-row tiles of each matrix so
 * that a single pool dispatch covers Q, K and V (or gate and up) together. Reused across calls:
 * {@link #prepare} sets the operands, sizes per-worker decode buffers and returns the chunk count.
 * Confined to the thread that owns the enclosing {@link CpuKernels}.
 */
final class MatmulTask implements ParallelTask {

    /**
     * Up to this batch a Q8_0 matmul reads each row in place for every activation row (in fours) instead of
     * decoding tiles of rows into floats: with so few rows the decode does not pay for itself, and the weight
     * stream stays as steady as at batch 1. {@code DecodeMatmulScaling} on the 124.7M model: 2 rows 221–227 →
     * 331–332 tokens/s, 4 rows 415–468 → 549–607; at 8 the two are level, at 16 the tiles win 2 to 1.
     */
    static final int FUSED_MAX_BATCH = 6;

    private final float[][] decoded;
    /** Per worker, the broadcast tiles' outputs of one chunk by column, before they go to the output; grows. */
    private final float[][] byColumnOut;
    /** The input rounded as Q8_0, Q4_0, Q4_1, Q5_0, Q5_1 and IQ4_NL weights want it (llama.cpp's {@code q8_0}). */
    private final QuantizedActivations q8_0 = new QuantizedActivations(QuantizedActivations.Scheme.Q8_0);
    /** The input rounded as the K-quants and IQ4_XS want it (llama.cpp's {@code q8_K}). */
    private final QuantizedActivations q8_K = new QuantizedActivations(QuantizedActivations.Scheme.Q8_K);
    /** {@link BlockSums} of the activation row for the float Q4_K/Q5_K dot at batch 1; grows, never shrinks. */
    private float[] sums = new float[0];
    /**
     * The input, and each rounding of it, by column for the broadcast tiles (batches of
     * {@link TiledMatmul#BROADCAST_MIN_BATCH} on).
     */
    private final ColumnActivations inputByColumn = new ColumnActivations();
    private final ColumnActivations q8_0ByColumn = new ColumnActivations();
    private final ColumnActivations q8_KByColumn = new ColumnActivations();
    /** Whether this run's tiles are the broadcast ones, {@link TiledMatmul#BROADCAST_ROWS} rows each. */
    private boolean broadcast;
    /**
     * Chunks a matrix splits into from two activation rows on: sixteen per thread, so that a thread held up (this
     * host's vCPUs stall for milliseconds at a time) leaves the other at most a sixteenth of its share to wait for.
     * The matmuls of a 64-token prefill of the 124.7M shape (two threads, AVX2, four rounds alternating) took a median
     * 154 ms (F32) and 159 ms (Q8_0) against 161 and 189 at four per thread, and ran more steps in every round.
     */
    private final int chunksPerMatrix;
    /**
     * At batch 1, rows per chunk (a multiple of 4): each thread runs its chunks in order from a range of its own
     * ({@link WorkerPool}), so its rows stream from memory as one run however small the chunks are, and small chunks
     * leave little to wait for at the end. With two chunks per thread claimed from one ticket, the matmuls of a Q4_0
     * decode step (124.7M shape, two threads, AVX2) took 9.96 ms (median of eight runs' medians) against 8.23 here;
     * 8, 16, 32 and 64 rows were within this host's noise of each other.
     */
    private static final int DECODE_CHUNK_ROWS = 16;
    /** Runs of a matrix one activation row reads at once ({@link #streams}). */
    private static final int STREAMS = 4;

    /**
     * Stream {@code s}'s row (or group of rows) where stream 0 reads {@code first}, the streams {@code stride} apart;
     * past the last of {@code count} it is {@code first} again, which the kernels compute but leave unstored.
     */
    static int streamIndex(int first, int s, int stride, int count) {
        int i = first + s * stride;
        return i < count ? i : first;
    }

    private final RepackedWeights repacked;
    /** Per matrix of the current run, its {@link InterleavedRows} copy if the run has one activation row, else null. */
    private InterleavedRows[] interleaved = new InterleavedRows[4];
    private WeightMatrix[] ws;
    private float[][] outs;
    private float[] x;
    private int batch;
    private int[] firstChunk = new int[4];
    private int[] chunkRows = new int[4];

    /**
     * @param threads pool threads; each gets its own decode buffer
     * @param repacked the executor's repacked weights, read in place of the matrices that have a copy there
     */
    MatmulTask(int threads, RepackedWeights repacked) {
        this.repacked = repacked;
        this.decoded = new float[threads][0];
        this.byColumnOut = new float[threads][0];
        this.chunksPerMatrix = threads * 16;
    }

    /** Sets the operands of the next run and returns its chunk count. */
    int prepare(WeightMatrix[] matrices, float[] input, float[][] outputs, int rowsOfInput) {
        this.ws = matrices;
        this.outs = outputs;
        this.x = input;
        this.batch = rowsOfInput;
        if (firstChunk.length < matrices.length + 1) {
            firstChunk = new int[matrices.length + 1];
            chunkRows = new int[matrices.length];
            interleaved = new InterleavedRows[matrices.length];
        }
        for (int i = 0; i < matrices.length; i++) { // the copies serve one activation row only
            interleaved[i] = rowsOfInput == 1 ? repacked.interleaved(matrices[i]) : null;
        }
        int maxCols = 0;
        int maxChunkRows = 0;
        int total = 0;
        broadcast = TiledMatmul.BROADCAST && (rowsOfInput >= TiledMatmul.BROADCAST_MIN_BATCH
                || rowsOfInput >= L && allInPlace(matrices));
        int tileRows = broadcast ? TiledMatmul.BROADCAST_ROWS : 4;
        for (int i = 0; i < matrices.length; i++) {
            int rows = matrices[i].rows();
            int perChunk = rowsOfInput == 1 ? DECODE_CHUNK_ROWS
                    : Math.ceilDiv(Math.ceilDiv(rows, chunksPerMatrix), tileRows) * tileRows;
            firstChunk[i] = total;
            chunkRows[i] = perChunk;
            maxChunkRows = Math.max(maxChunkRows, perChunk);
            total += interleaved[i] != null ? interleaved[i].chunks()
                    : rowsOfInput == 1 && streamed(matrices[i].type()) ? Math.ceilDiv(Math.ceilDiv(rows, STREAMS), STREAMS)
                    : Math.ceilDiv(rows, perChunk);
            maxCols = Math.max(maxCols, matrices[i].cols());
        }
        firstChunk[matrices.length] = total;
        prepareInputs(matrices, input, rowsOfInput);
        if (rowsOfInput == 1 && needsBlockSums(matrices)) {
            if (sums.length < maxCols / BlockSums.BLOCK) {
                sums = new float[maxCols / BlockSums.BLOCK];
            }
            BlockSums.of(input, 0, maxCols, sums);
        }
        int byColumnSize = broadcast ? maxChunkRows * ColumnActivations.strideFor(rowsOfInput) : 0;
        for (int t = 0; t < decoded.length; t++) {
            if (decoded[t].length < tileRows * maxCols) {
                decoded[t] = new float[tileRows * maxCols];
            }
            if (byColumnOut[t].length < byColumnSize) {
                byColumnOut[t] = new float[byColumnSize];
            }
        }
        return total;
    }

    /**
     * Rounds the input once for each activation scheme the matrices use (they all read the same input), with the
     * levels the integer dots read only for one activation row and matrices that take them; for the broadcast
     * tiles, lays out by column each input the matrices read (the input itself, or its rounding for their scheme).
     */
    private void prepareInputs(WeightMatrix[] matrices, float[] input, int rowsOfInput) {
        boolean plain = false;
        boolean want8_0 = false;
        boolean want8_K = false;
        boolean levels8_0 = false;
        boolean levels8_K = false;
        boolean offsets8_1 = false;
        boolean pairs8_0 = false;
        boolean pairs8_K = false;
        boolean nibbleOrder8_K = false;
        for (int i = 0; i < matrices.length; i++) {
            WeightMatrix w = matrices[i];
            boolean pairs = interleaved[i] != null;
            offsets8_1 |= hasOffsets(w.type());
            boolean integerDots = rowsOfInput == 1 && IntDots.preferred(w.type());
            switch (QuantizedActivations.Scheme.of(w.type())) {
                case NONE -> plain = true;
                case Q8_0 -> {
                    want8_0 = true;
                    levels8_0 |= integerDots || pairs;
                    pairs8_0 |= pairs;
                }
                case Q8_K -> {
                    want8_K = true;
                    levels8_K |= integerDots || pairs;
                    pairs8_K |= pairs;
                    nibbleOrder8_K |= integerDots && IntDots.WIDE && w.type() == GgmlType.IQ4_XS;
                }
            }
        }
        int cols = matrices[0].cols();
        if (want8_0) {
            q8_0.quantize(input, rowsOfInput * cols, levels8_0);
            if (offsets8_1) {
                q8_0.q8_1SumErrors(input, rowsOfInput * cols);
            }
            if (pairs8_0) {
                q8_0.chunkPairs(cols);
            }
        }
        if (want8_K) {
            q8_K.quantize(input, rowsOfInput * cols, levels8_K);
            if (nibbleOrder8_K) {
                q8_K.orderNibblePairs(cols);
            }
            if (pairs8_K) {
                q8_K.chunkPairs(cols);
            }
        }
        if (!broadcast) {
            return;
        }
        if (plain) {
            inputByColumn.transpose(input, rowsOfInput, cols);
        }
        if (want8_0) {
            q8_0ByColumn.transpose(q8_0.dequantized, rowsOfInput, cols);
        }
        if (want8_K) {
            q8_KByColumn.transpose(q8_K.dequantized, rowsOfInput, cols);
        }
    }

    private QuantizedActivations activationsFor(GgmlType type) {
        return switch (QuantizedActivations.Scheme.of(type)) {
            case Q8_0 -> q8_0;
            case Q8_K -> q8_K;
            case NONE -> null;
        };
    }

    /** The by-column layout of the input a matmul with {@code rounded} activations (null: float) reads. */
    private ColumnActivations byColumn(QuantizedActivations rounded) {
        return rounded == null ? inputByColumn : rounded == q8_0 ? q8_0ByColumn : q8_KByColumn;
    }

    /** Drops the references to the last call's operands. */
    void clear() {
        ws = null;
        outs = null;
        x = null;
        Arrays.fill(interleaved, null);
    }

    @Override
    public void run(int chunk, int worker) {
        int i = 0;
        while (chunk >= firstChunk[i + 1]) {
            i++;
        }
        WeightMatrix w = ws[i];
        QuantizedActivations rounded = activationsFor(w.type());
        InterleavedRows copy = interleaved[i];
        if (copy != null) {
            copy.multiply(rounded, outs[i], chunk - firstChunk[i]);
            return;
        }
        if (batch == 1 && streamed(w.type())) {
            streams(w, x, rounded, outs[i], chunk - firstChunk[i]);
            return;
        }
        if (broadcast && inPlace(w)) {
            streamedTiles(w, byColumn(rounded), outs[i], chunk - firstChunk[i], firstChunk[i + 1] - firstChunk[i],
                    byColumnOut[worker]);
            return;
        }
        int r0 = (chunk - firstChunk[i]) * chunkRows[i];
        int r1 = Math.min(w.rows(), r0 + chunkRows[i]);
        if (rounded != null && batch == 1 && IntDots.preferred(w.type())) {
            intRows(w, rounded, outs[i], batch, r0, r1);
            return;
        }
        float[] input = rounded == null ? x : rounded.dequantized;
        if (broadcast) {
            broadcastRows(w, byColumn(rounded), input, outs[i], r0, r1, decoded[worker], byColumnOut[worker]);
        } else {
            rows(w, input, outs[i], batch, r0, r1, decoded[worker], sums);
        }
        if (rounded != null && hasOffsets(w.type())) {
            q8_1Offsets(w, rounded.q8_1SumErrors, outs[i], batch, r0, r1, decoded[worker]);
        }
    }

    /**
     * Whether one activation row reads a {@code type} matrix in place as four streams ({@link #streams}): F32, and Q8_0
     * over 8-bit activations.
     */
    private static boolean streamed(GgmlType type) {
        return type == GgmlType.F32
                || type == GgmlType.Q8_0 && QuantizedActivations.Scheme.of(type) == QuantizedActivations.Scheme.Q8_0;
    }

    /**
     * Chunk {@code chunk} of one activation row times {@code w} ({@link #streamed}): each quarter of the rows its own
     * stream of weights ({@link FusedDots#f32Streams}, {@link IntDots#q8_0Streams}), chunk {@code k} taking rows
     * {@code 4k .. 4k+3} of every quarter, so a thread running consecutive chunks reads four runs of the matrix at once.
     */
    private static void streams(WeightMatrix w, float[] x, QuantizedActivations rounded, float[] out, int chunk) {
        int quarter = Math.ceilDiv(w.rows(), STREAMS);
        for (int j = STREAMS * chunk, end = Math.min(quarter, j + STREAMS); j < end; j++) {
            if (w.type() == GgmlType.F32) {
                FusedDots.f32Streams(w.data(), w.rowBytes(), x, w.cols(), out, j, quarter, w.rows());
            } else {
                IntDots.q8_0Streams(w.data(), w.rowBytes(), rounded, w.cols() / Q8_0Codec.BLOCK_SIZE, out, j, quarter,
                        w.rows());
            }
        }
    }

    /** Whether {@code type}'s blocks carry an offset {@code m} that llama.cpp multiplies by an f16 block sum. */
    private static boolean hasOffsets(GgmlType type) {
        return type == GgmlType.Q4_1 || type == GgmlType.Q5_1;
    }

    /**
     * llama.cpp multiplies the offset {@code m} of a Q4_1 or Q5_1 weight block by its {@code q8_1} activations' block
     * sum kept in f16, where the dots and tiles multiplied it by the exact sum of the rounded block: adds
     * {@code m·(s − Σx̃)} for every block of rows {@code [r0, r1)}, so the products are llama.cpp's to float32
     * rounding. On held-out dim-640 and dim-896 models, whose K-quant mixes fall back to Q5_1, the logits came from
     * 0.033–0.050 to at most 0.025 off llama.cpp's. A vector of output rows at a time, their offsets laid out by
     * block in {@code buffer} (a worker's scratch of at least {@code L · cols / 32} floats), so each activation row's
     * corrections land in one vector store: adding them one output at a time, {@code rows} floats apart, made a
     * 2048x768 Q5_1 matmul at batch 64 2.2–2.7× slower; this way it costs 10–20% at batch 64 and 12–25% at batch 1,
     * most of it the offsets' f16 loads (reading them while the row is decoded was slower still).
     */
    private static void q8_1Offsets(WeightMatrix w, float[] sumErrors, float[] out, int batch, int r0, int r1,
                                    float[] buffer) {
        NibbleBlock layout = w.type() == GgmlType.Q4_1 ? NibbleBlock.Q4_1 : NibbleBlock.Q5_1;
        MemorySegment seg = w.data();
        int blocks = w.cols() / NibbleBlock.SIZE;
        int rows = w.rows();
        int r = r0;
        for (; r + L <= r1; r += L) {
            for (int i = 0; i < L; i++) {
                long row = (r + i) * w.rowBytes();
                for (int k = 0; k < blocks; k++) {
                    buffer[k * L + i] = layout.min(seg, row + (long) k * layout.blockBytes());
                }
            }
            int b = 0;
            for (; b + 4 <= batch; b += 4) {
                // four activation rows share each vector of offsets, and their sums are independent chains
                FloatVector acc0 = FloatVector.fromArray(F, out, b * rows + r);
                FloatVector acc1 = FloatVector.fromArray(F, out, (b + 1) * rows + r);
                FloatVector acc2 = FloatVector.fromArray(F, out, (b + 2) * rows + r);
                FloatVector acc3 = FloatVector.fromArray(F, out, (b + 3) * rows + r);
                for (int k = 0; k < blocks; k++) {
                    FloatVector mins = FloatVector.fromArray(F, buffer, k * L);
                    acc0 = mins.fma(FloatVector.broadcast(F, sumErrors[b * blocks + k]), acc0);
                    acc1 = mins.fma(FloatVector.broadcast(F, sumErrors[(b + 1) * blocks + k]), acc1);
                    acc2 = mins.fma(FloatVector.broadcast(F, sumErrors[(b + 2) * blocks + k]), acc2);
                    acc3 = mins.fma(FloatVector.broadcast(F, sumErrors[(b + 3) * blocks + k]), acc3);
                }
                acc0.intoArray(out, b * rows + r);
                acc1.intoArray(out, (b + 1) * rows + r);
                acc2.intoArray(out, (b + 2) * rows + r);
                acc3.intoArray(out, (b + 3) * rows + r);
            }
            for (; b < batch; b++) {
                FloatVector acc = FloatVector.fromArray(F, out, b * rows + r);
                for (int k = 0; k < blocks; k++) {
                    acc = FloatVector.fromArray(F, buffer, k * L)
                            .fma(FloatVector.broadcast(F, sumErrors[b * blocks + k]), acc);
                }
                acc.intoArray(out, b * rows + r);
            }
        }
        for (; r < r1; r++) {
            long row = r * w.rowBytes();
            for (int k = 0; k < blocks; k++) {
                buffer[k] = layout.min(seg, row + (long) k * layout.blockBytes());
            }
            for (int b = 0; b < batch; b++) {
                float offsets = 0f;
                for (int k = 0; k < blocks; k++) {
                    offsets += buffer[k] * sumErrors[b * blocks + k];
                }
                out[b * rows + r] += offsets;
            }
        }
    }

    /**
     * Output rows {@code [r0, r1)} of {@code w · x̃} for every activation row of {@code rounded} by integer dots,
     * each weight row read once from memory and then from L1 for the next activation rows. Taken at batch 1 only:
     * the dots unpack every weight again for each activation row, and from 4 rows on (AVX2, one thread, Q8_0 to
     * Q6_K) the tiles over the same rounded activations were 1.3–2.2× faster.
     */
    static void intRows(WeightMatrix w, QuantizedActivations rounded, float[] out, int batch, int r0, int r1) {
        MemorySegment seg = w.data();
        long rowBytes = w.rowBytes();
        int cols = w.cols();
        int rows = w.rows();
        int blocks = cols / w.type().blockSize();
        for (int r = r0; r < r1; r++) {
            long off = r * rowBytes;
            for (int b = 0; b < batch; b++) {
                out[b * rows + r] = switch (w.type()) {
                    case Q4_0 -> IntDots.q4_0(seg, off, rounded, b * cols, blocks);
                    case Q4_K -> IntDots.q4_K(seg, off, rounded, b * cols, blocks);
                    case Q5_K -> IntDots.q5_K(seg, off, rounded, b * cols, blocks);
                    case Q3_K -> IntDots.q3_K(seg, off, rounded, b * cols, blocks);
                    case Q2_K -> IntDots.q2_K(seg, off, rounded, b * cols, blocks);
                    case IQ4_NL -> IntDots.iq4_NL(seg, off, rounded, b * cols, blocks);
                    case IQ4_XS -> IntDots.iq4_XS(seg, off, rounded, b * cols, blocks);
                    case Q6_K -> IntDots.q6_K(seg, off, rounded, b * cols, blocks);
                    default -> throw new IllegalStateException("no integer dot for " + w.type());
                };
            }
        }
    }

    private static boolean allInPlace(WeightMatrix[] matrices) {
        for (WeightMatrix w : matrices) {
            if (!inPlace(w)) {
                return false;
            }
        }
        return true;
    }

    /** Whether the broadcast tiles read {@code w} in place, eight runs of it at once ({@link #streamedTiles}). */
    private static boolean inPlace(WeightMatrix w) {
        return TiledMatmul.IN_PLACE_F32 && w.type() == GgmlType.F32 && w.rows() % TiledMatmul.BROADCAST_ROWS == 0;
    }

    /**
     * Chunk {@code k} of the {@code chunks} of an F32 matrix by the in-place broadcast tiles ({@link
     * TiledMatmul#inPlaceTile}): the rows split into eight runs, tile {@code t} takes row {@code t} of every run, and
     * chunk {@code k} tiles {@code k·n/chunks} to {@code (k+1)·n/chunks} ({@code n} rows a run), so a thread running
     * consecutive chunks reads the eight runs front to back at once. Outputs by column into {@code byColumnOut}, run
     * after run, then to {@code out} by activation row.
     */
    private static void streamedTiles(WeightMatrix w, ColumnActivations byColumn, float[] out, int k, int chunks,
                                      float[] byColumnOut) {
        int runs = TiledMatmul.BROADCAST_ROWS;
        int rows = w.rows();
        int run = rows / runs;
        int t0 = (int) ((long) k * run / chunks);
        int t1 = (int) ((long) (k + 1) * run / chunks);
        int tiles = t1 - t0;
        int stride = byColumn.stride;
        long rowBytes = w.rowBytes();
        for (int t = t0; t < t1; t++) {
            TiledMatmul.inPlaceTile(w.data(), t * rowBytes, run * rowBytes, w.cols(), byColumn, byColumnOut,
                    (t - t0) * stride, tiles * stride);
        }
        for (int i = 0; i < runs; i++) {
            byColumnToRows(byColumnOut, i * tiles * stride, stride, out, rows, t0 + i * run, tiles, byColumn.rows);
        }
    }

    /**
     * Output rows {@code first .. first+count−1} of the broadcast tiles, row {@code first + t} by column at
     * {@code byColumnOut[from + t·stride ..]}, into {@code out} by activation row ({@code activations} of them,
     * {@code rows} outputs each). In blocks of 16 output rows: the 16 lines read for one activation row serve the
     * next 15 from L1.
     */
    private static void byColumnToRows(float[] byColumnOut, int from, int stride, float[] out, int rows, int first,
                                       int count, int activations) {
        for (int block = 0; block < count; block += 16) {
            int end = Math.min(count, block + 16);
            for (int b = 0; b < activations; b++) {
                for (int t = block, o = b * rows + first, at = from + block * stride + b; t < end; t++, at += stride) {
                    out[o + t] = byColumnOut[at];
                }
            }
        }
    }

    /**
     * Output rows {@code [r0, r1)} by the broadcast tiles: {@link TiledMatmul#BROADCAST_ROWS} weight rows decoded at a
     * time, times the activation rows of {@code byColumn}, into {@code byColumnOut}, then copied to {@code out} one
     * activation row at a time; the rows left over (fewer than a tile) take the 4-row and 1-row tiles over {@code x}.
     * The tiles do not store into {@code out} directly: their outputs for one activation row land {@code rows} floats
     * apart, and at a power-of-two row count those stores all fall in one L1 set (so stored, 2048x768 at batch 64 ran
     * slower than the 4×4 tiles and 2000x768 1.3× faster).
     */
    private static void broadcastRows(WeightMatrix w, ColumnActivations byColumn, float[] x, float[] out, int r0,
                                      int r1, float[] buffer, float[] byColumnOut) {
        MemorySegment seg = w.data();
        long rowBytes = w.rowBytes();
        int cols = w.cols();
        int stride = byColumn.stride;
        int r = r0;
        int tile = TiledMatmul.BROADCAST_ROWS;
        for (; r + tile <= r1; r += tile) {
            for (int i = 0; i < tile; i++) {
                RowDecoder.decode(w.type(), seg, (r + i) * rowBytes, cols, buffer, i * cols);
            }
            TiledMatmul.broadcastTile(buffer, cols, byColumn, byColumnOut, (r - r0) * stride);
        }
        byColumnToRows(byColumnOut, 0, stride, out, w.rows(), r0, r - r0, byColumn.rows);
        tiles(w, x, out, byColumn.rows, r, r1, buffer);
    }

    private static void decodeAndDot(WeightMatrix w, float[] x, float[] out, int r0, int r1, float[] buffer) {
        for (int r = r0; r < r1; r++) {
            RowDecoder.decode(w.type(), w.data(), r * w.rowBytes(), w.cols(), buffer, 0);
            out[r] = VectorMath.dot(buffer, 0, x, 0, w.cols());
        }
    }

    /** Whether a Q4_K or Q5_K matrix takes the float dot at batch 1 (the integer dots read the rounded sums). */
    private static boolean needsBlockSums(WeightMatrix[] matrices) {
        for (WeightMatrix w : matrices) {
            if ((w.type() == GgmlType.Q4_K || w.type() == GgmlType.Q5_K)
                    && QuantizedActivations.Scheme.of(w.type()) == QuantizedActivations.Scheme.NONE) {
                return true;
            }
        }
        return false;
    }

    /**
     * Output rows {@code [r0, r1)} of {@code w · x} for every activation row; at batch 1 a
     * Q4_K or Q5_K matrix needs {@code sums} from {@link BlockSums#of}.
     */
    static void rows(WeightMatrix w, float[] x, float[] out, int batch, int r0, int r1, float[] buffer,
                     float[] sums) {
        MemorySegment seg = w.data();
        GgmlType type = w.type();
        long rowBytes = w.rowBytes();
        int cols = w.cols();
        int rows = w.rows();
        if (batch == 1) {
            switch (type) {
                case F32 -> {
                    for (int r = r0; r < r1; r++) {
                        out[r] = FusedDots.f32(seg, r * rowBytes, x, 0, cols);
                    }
                }
                case Q8_0 -> {
                    for (int r = r0; r < r1; r++) {
                        out[r] = FusedDots.SIXTEEN_LANES
                                ? FusedDots.q8_0(seg, r * rowBytes, x, 0, cols / Q8_0Codec.BLOCK_SIZE)
                                : FusedDots.q8_0AnyWidth(seg, r * rowBytes, x, 0, cols / Q8_0Codec.BLOCK_SIZE);
                    }
                }
                case Q4_0 -> {
                    for (int r = r0; r < r1; r++) {
                        out[r] = FusedDots.SIXTEEN_LANES
                                ? FusedDots.q4_0(seg, r * rowBytes, x, 0, cols / Q4_0Codec.BLOCK_SIZE)
                                : FusedDots.q4_0AnyWidth(seg, r * rowBytes, x, 0, cols / Q4_0Codec.BLOCK_SIZE);
                    }
                }
                case Q4_K -> {
                    if (!FusedDots.SIXTEEN_LANES) {
                        decodeAndDot(w, x, out, r0, r1, buffer);
                        return;
                    }
                    for (int r = r0; r < r1; r++) {
                        out[r] = KQuantDots.q4_K(seg, r * rowBytes, x, 0, sums, cols / Q4_KCodec.BLOCK_SIZE);
                    }
                }
                case Q5_K, Q3_K, IQ4_XS -> {
                    if (!FusedDots.SIXTEEN_LANES) {
                        decodeAndDot(w, x, out, r0, r1, buffer);
                        return;
                    }
                    int blocks = cols / Q4_KCodec.BLOCK_SIZE;
                    for (int r = r0; r < r1; r++) {
                        out[r] = switch (type) {
                            case Q5_K -> KQuantDots.q5_K(seg, r * rowBytes, x, 0, sums, blocks);
                            case Q3_K -> KQuantDots.q3_K(seg, r * rowBytes, x, 0, blocks);
                            default -> KQuantDots.iq4_XS(seg, r * rowBytes, x, 0, blocks);
                        };
                    }
                }
                case Q6_K -> {
                    for (int r = r0; r < r1; r++) {
                        out[r] = KQuantDots.q6_K(seg, r * rowBytes, x, 0, cols / Q6_KCodec.BLOCK_SIZE);
                    }
                }
                default -> decodeAndDot(w, x, out, r0, r1, buffer);
            }
            return;
        }
        if (type == GgmlType.Q8_0 && FusedDots.SIXTEEN_LANES && batch <= FUSED_MAX_BATCH) {
            int blocks = cols / Q8_0Codec.BLOCK_SIZE;
            for (int r = r0; r < r1; r++) {
                long off = r * rowBytes;
                int b = 0;
                for (; b + 4 <= batch; b += 4) {
                    FusedDots.q8_0x4(seg, off, x, b * cols, cols, blocks, out, b * rows + r, rows);
                }
                for (; b < batch; b++) {
                    out[b * rows + r] = FusedDots.q8_0(seg, off, x, b * cols, blocks);
                }
            }
            return;
        }
        tiles(w, x, out, batch, r0, r1, buffer);
    }

    /** Output rows {@code [r0, r1)} by the 4×4 tiles (and single rows for the last one to three). */
    private static void tiles(WeightMatrix w, float[] x, float[] out, int batch, int r0, int r1, float[] buffer) {
        MemorySegment seg = w.data();
        long rowBytes = w.rowBytes();
        int cols = w.cols();
        int rows = w.rows();
        int r = r0;
        for (; r + 4 <= r1; r += 4) {
            for (int i = 0; i < 4; i++) {
                RowDecoder.decode(w.type(), seg, (r + i) * rowBytes, cols, buffer, i * cols);
            }
            TiledMatmul.fourRows(buffer, cols, x, batch, out, rows, r);
        }
        for (; r < r1; r++) {
            RowDecoder.decode(w.type(), seg, r * rowBytes, cols, buffer, 0);
            TiledMatmul.oneRow(buffer, cols, x, batch, out, rows, r);
        }
    }
}
